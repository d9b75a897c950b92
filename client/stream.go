package client

import (
	"errors"
	"fmt"
	"io"
	"mime"
	"sort"
	"strings"
	"time"

	"github.com/tpsbench/tpsbench/record"
)

// streamState accumulates one response into its record.
type streamState struct {
	rec     *record.Record
	clock   *record.Clock
	onToken TokenFunc
	onChunk func(*record.Record, int) // the request's live observer, if any
	answer  *strings.Builder          // the request's answer text, if asked
	stamp   func() time.Time          // arrival time of the bytes last read; nil: now

	tokenizer TextCounter     // a client-side tokenizer, when configured
	text      strings.Builder // the generated text, kept only to count it
	reasoned  strings.Builder // its reasoning part, likewise

	err  error
	kind string

	// scan reads one event (or a whole response) of the API spoken
	// (useAPI); srv gathers the timings a server reports of itself, and
	// textSoFar the length of a cumulative text (SGLang's)
	api       *protocol
	scan      scanFunc
	srv       record.ServerTiming
	textSoFar int

	bytesPer    []int // text bytes of each token-bearing chunk, to apportion usage
	chunkUsage  bool  // every token-bearing chunk so far carried cumulative usage
	cumulative  int   // the last cumulative completion_tokens seen on a token-bearing chunk
	usageSeen   bool
	answers     int // the answers an outputless request got: a vector or a score an input
	usageTokens int
	usageFell   int // a cumulative usage lower than one before it (+1), or 0
	reasoning   int // hidden reasoning tokens the usage counts (not streamed)
	doneSeen    bool
}

func (st *streamState) fail(kind string, err error) {
	if st.err == nil {
		st.err, st.kind = err, kind
	}
}

var doneMarker = []byte("[DONE]")

// stampOf turns an arrival time into a record stamp, never before the
// request was sent nor before the chunk before it: with kernel receive
// times, a reply can arrive before the hook that stamps the send has run,
// and a read the kernel did not stamp can order itself a few microseconds
// off its neighbours.
func (st *streamState) stampOf(at time.Time) int64 {
	return max(st.clock.Since(at), st.rec.Sent, st.rec.Last)
}

// readStream consumes an SSE body.
func (st *streamState) readStream(body io.Reader) {
	sse := newSSEReader(body)
	defer sse.release()
	sse.tr.stamp = st.stamp
	var ci chunkInfo
	st.chunkUsage = true
	for {
		event, data, at, err := sse.next()
		if err != nil && st.doneSeen {
			return // the response was whole: what befell the rest is not its
		}
		if err != nil {
			st.rec.Done = st.clock.Now()
			switch {
			case errors.Is(err, io.EOF):
				if st.rec.FinishReason == "" {
					st.fail(record.KindStreamCut, errors.New("stream ended without [DONE] or a finish reason"))
				}
			case errors.Is(err, errEventTooLong):
				st.fail(record.KindMalformed, err)
			default:
				st.fail(record.KindStreamCut, fmt.Errorf("reading stream: %w", err))
			}
			return
		}
		if st.doneSeen {
			continue // data after [DONE] is drained and ignored
		}
		if string(data) == string(doneMarker) {
			st.doneSeen = true
			st.rec.Done = st.stampOf(at)
			continue
		}
		if err := st.scan(data, &ci); err != nil {
			st.rec.Done = st.stampOf(at)
			st.fail(record.KindMalformed, fmt.Errorf("event %d: %w: %.80q", len(st.bytesPer), err, data))
			return
		}
		if ci.hasError || string(event) == "error" {
			st.rec.Done = st.stampOf(at)
			msg := "error event"
			if ci.errMsg != nil {
				msg = unquote(ci.errMsg)
			}
			st.fail(record.KindServerError, errors.New("server error mid-stream: "+msg))
			return
		}
		st.take(&ci, st.stampOf(at))
		if ci.last {
			// as after [DONE]: a server that streams on past its last
			// event (999 more tokens after response.completed) adds
			// nothing to the response it ended
			st.doneSeen = true
			st.rec.Done = st.stampOf(at)
		}
	}
}

// useAPI sets how events are read for an API.
func (st *streamState) useAPI(api string) {
	st.api = protocolOf(api)
	if st.api == nil {
		st.api = &chatAPI
	}
	st.scan = st.api.scanner(st)
}

// read consumes a response body of the API in use: a stream when one was
// asked for and came (contentType is the response's), else a whole answer.
func (st *streamState) read(body io.Reader, contentType string, stream bool) {
	ct, _, _ := mime.ParseMediaType(contentType)
	switch {
	case st.api.ndjson:
		st.readNDJSON(body)
	case stream && (ct == "" || ct == "text/event-stream"):
		st.readStream(body)
	default:
		st.readWhole(body, ct)
	}
}

// readWhole consumes a non-streamed JSON body (also what a server sends when
// it ignores stream: true). It counts as one chunk carrying every token.
// contentType, the body's media type when known, names what came instead
// of JSON.
func (st *streamState) readWhole(body io.Reader, contentType string) {
	b, err := io.ReadAll(io.LimitReader(body, maxEvent+1))
	now := st.clock.Now()
	if st.stamp != nil {
		now = st.stampOf(st.stamp())
	}
	st.rec.Done = now
	if err != nil {
		st.fail(record.KindStreamCut, fmt.Errorf("reading body: %w", err))
		return
	}
	if len(b) > maxEvent {
		st.fail(record.KindMalformed, errEventTooLong)
		return
	}
	var ci chunkInfo
	if err := st.scan(b, &ci); err != nil {
		switch {
		case contentType == "text/event-stream":
			err = fmt.Errorf("the server answered a stream (text/event-stream) to a request for a whole response: it ignores \"stream\": false (%w)", err)
		case contentType != "" && contentType != "application/json":
			err = fmt.Errorf("want JSON, got %s: %w", contentType, err)
		}
		st.fail(record.KindMalformed, err)
		return
	}
	if ci.hasError {
		msg := "error object"
		if ci.errMsg != nil {
			msg = unquote(ci.errMsg)
		}
		st.fail(record.KindServerError, errors.New("server error: "+msg))
		return
	}
	st.doneSeen = true
	st.take(&ci, now)
}

// take records one decoded chunk that arrived at offset at.
func (st *streamState) take(ci *chunkInfo, at int64) {
	rec := st.rec
	if len(ci.id) > 0 && rec.ResponseID == "" {
		rec.ResponseID = string(ci.id)
	}
	if len(ci.finish) > 0 {
		rec.FinishReason = string(ci.finish)
	}
	st.answers += ci.answers
	if ci.hasUsage {
		if st.usageSeen && ci.completion < st.usageTokens && st.usageFell == 0 {
			st.usageFell = st.usageTokens + 1
		}
		st.usageSeen = true
		st.usageTokens = ci.completion
		st.reasoning = max(st.reasoning, ci.reasoning)
		if ci.prompt > 0 {
			rec.PromptTokens = ci.prompt
		}
		if ci.cached > 0 {
			rec.CachedTokens = ci.cached
		}
	}
	if !ci.tokenBearing() {
		if n := len(rec.OtherEvents); ci.choices && n < record.MaxOtherEvents {
			off := at - rec.Sent
			if n > 0 {
				off = max(off, rec.OtherEvents[n-1]) // in order, as the events came
			}
			rec.OtherEvents = append(rec.OtherEvents, off)
		}
		return
	}
	tokens := 1
	if ci.hasUsage && st.chunkUsage {
		tokens = ci.completion - st.cumulative
		st.cumulative = ci.completion
		if tokens < 0 {
			tokens = 0
		}
	} else {
		st.chunkUsage = false
	}
	if len(rec.Chunks) == 0 {
		rec.First = at
	}
	rec.Last = at
	if rec.AppendChunk(record.Chunk{At: at - rec.Sent, Tokens: tokens, Kind: ci.kind()}) {
		st.bytesPer = append(st.bytesPer, ci.textBytes)
	} else {
		st.bytesPer[len(st.bytesPer)-1] += ci.textBytes
	}
	rec.Streamed += tokens
	if st.onChunk != nil {
		st.onChunk(rec, tokens)
	}
	if st.answer != nil {
		st.answer.WriteString(ci.textOf(true, false))
	}
	if st.onToken != nil || st.tokenizer.Count != nil {
		text := ci.text()
		if st.tokenizer.Count != nil {
			st.text.WriteString(text)
			if ci.reasonBytes > 0 {
				st.reasoned.WriteString(ci.textOf(false, true))
			}
		}
		if st.onToken != nil {
			st.onToken(at, tokens, text)
		}
	}
}

// finish settles the token count and its source once the body is read.
func (st *streamState) finish() {
	rec := st.rec
	// a cache can hold no more of the prompt than the prompt
	rec.CachedTokens = min(max(rec.CachedTokens, 0), rec.PromptTokens)
	if st.api.outputless {
		st.finishOutputless()
		return
	}
	if st.srv != (record.ServerTiming{}) && rec.Server == nil {
		srv := st.srv
		rec.Server = &srv
	}
	if why := st.implausibleUsage(); why != "" {
		// the server's count is not believed: it is kept and flagged, and
		// the tokens are counted as if it had sent none
		rec.UsageSuspect = why
		rec.UsageTokens = min(st.usageTokens, record.MaxTokens)
		st.usageSeen = false
		for i := range rec.Chunks {
			rec.Chunks[i].Tokens = 1
		}
		if n := len(rec.Chunks); n > 0 {
			rec.Chunks[n-1].Tokens += rec.ChunksFolded
		}
	}
	chunks := 0
	for _, c := range rec.Chunks {
		chunks += c.Tokens
	}
	if st.tokenizer.Count != nil && len(rec.Chunks) > 0 {
		rec.TokenizerTokens = min(st.tokenizer.Count(st.text.String()), record.MaxTokens)
		rec.Tokenizer = st.tokenizer.Name
	}
	// reasoning is the reasoning tokens known apart from the chunks (the
	// server's usage, or the tokenizer's count of the reasoning text), or -1
	reasoning := -1
	switch {
	case st.usageSeen:
		rec.UsageTokens = st.usageTokens
		rec.OutputTokens = st.usageTokens
		rec.TokenSource = record.SourceUsage
		if st.reasoning > 0 {
			reasoning = min(st.reasoning, rec.OutputTokens)
		}
		if !st.chunkUsage && len(rec.Chunks) > 0 && (st.usageTokens != chunks || reasoning >= 0) {
			apportionKinds(rec.Chunks, st.bytesPer, st.usageTokens, fitReasoning(rec.Chunks, st.usageTokens, reasoning))
		}
	case st.tokenizer.Count != nil && len(rec.Chunks) > 0:
		// every chunk carried a token: a tokenizer that counts fewer for
		// the text (another model's) is held to that
		n := max(rec.TokenizerTokens, len(rec.Chunks))
		rec.OutputTokens = n
		rec.TokenSource = record.SourceTokenizer
		if st.reasoned.Len() > 0 {
			reasoning = min(st.tokenizer.Count(st.reasoned.String()), n)
		}
		if n != chunks || reasoning >= 0 {
			apportionKinds(rec.Chunks, st.bytesPer, n, fitReasoning(rec.Chunks, n, reasoning))
		}
	default:
		rec.OutputTokens = chunks
		rec.TokenSource = record.SourceChunks
	}
	st.countKinds(reasoning)
	if rec.Error == nil && len(rec.Chunks) == 0 {
		switch {
		case st.usageSeen:
			// completed with no text to show (a stop string that matched
			// the first token): the server's count stands, and the one
			// moment known is the response's end
			if rec.OutputTokens > 0 {
				rec.First, rec.Last = rec.Done, rec.Done
			}
		default:
			rec.Fail(record.KindEmpty, "the response completed without an output token")
		}
	} else if rec.Error == nil && rec.OutputTokens == 0 {
		rec.Fail(record.KindEmpty, "the response completed without an output token")
	}
	if rec.Done < rec.Last {
		rec.Done = rec.Last
	}
	if n := len(rec.OtherEvents); n > 0 && rec.Done < rec.Sent+rec.OtherEvents[n-1] {
		rec.Done = rec.Sent + rec.OtherEvents[n-1]
	}
}

// countKinds settles the record's reasoning and tool-call tokens:
// reasoning as known apart from the chunks (reasoning >= 0), else the
// tokens of the reasoning chunks; tool calls those of their chunks, within
// what the output count leaves.
func (st *streamState) countKinds(reasoning int) {
	rec := st.rec
	var inChunks [3]int
	for _, c := range rec.Chunks {
		inChunks[c.Kind] += c.Tokens
	}
	if reasoning < 0 {
		reasoning = inChunks[record.ChunkReasoning]
	}
	rec.ReasoningTokens = min(reasoning, rec.OutputTokens)
	rec.ToolCallTokens = min(inChunks[record.ChunkToolCall], rec.OutputTokens-rec.ReasoningTokens)
}

// Usage is implausible when it claims more output tokens than any server
// could have sent in what was streamed: each token decodes to at least a
// byte of text (4 a byte leaves room for tokens of partial characters
// and for empty special tokens), and no chunk carries more than 16, plus
// the reasoning tokens usage says were hidden, up to the request's budget;
// nor fewer tokens than the chunks that carried them. A claim of 2e9 tokens over
// 8 chunks made a record of 3.7e12 tokens/s.
func (st *streamState) implausibleUsage() string {
	if !st.usageSeen {
		return ""
	}
	if st.usageFell > 0 {
		return fmt.Sprintf("cumulative usage fell from %d to %d output tokens", st.usageFell-1, st.usageTokens)
	}
	text := 0
	for _, b := range st.bytesPer {
		text += b
	}
	// hidden reasoning is what was not streamed, so only the request's
	// budget bounds it (usage of 1e9 output tokens, all "reasoning", for
	// 8 chunks and a budget of 8 made a success at 5.5e11 tokens/s)
	hidden := min(st.reasoning, record.MaxTokens)
	if st.rec.MaxTokens > 0 {
		hidden = min(hidden, st.rec.MaxTokens)
	}
	chunks := len(st.rec.Chunks) + st.rec.ChunksFolded
	limit := 4*text + 16*chunks + 64 + hidden
	if st.usageTokens > limit || st.usageTokens > record.MaxTokens {
		return fmt.Sprintf("usage claims %d output tokens for %d chunks of %d bytes of text", st.usageTokens, chunks, text)
	}
	// each token-bearing chunk carried a token (TGI's usage of 1 for 8
	// events is not a count); cumulative usage on each chunk said itself
	// what each carried
	if !st.chunkUsage && st.usageTokens < chunks {
		return fmt.Sprintf("usage claims %d output tokens for %d chunks that each carried one", st.usageTokens, chunks)
	}
	return ""
}

// fitReasoning bounds a reasoning count known apart from the chunks (or
// -1) to what n tokens shared over them allow, each chunk carrying at
// least one: no fewer than the reasoning chunks, no more than leaves one
// for each other chunk (a whole answer with usage 9 and reasoning 20 gave
// chunks of 10 tokens for 9). It shares the tokens out only: the count
// the record keeps is the server's (a chunk where the reasoning ends and
// the answer begins is an answer chunk, though one of its tokens may be
// reasoning). n is at least the chunks.
func fitReasoning(chunks []record.Chunk, n, reasoning int) int {
	if reasoning < 0 {
		return reasoning
	}
	thinking := 0
	for _, c := range chunks {
		if c.Kind == record.ChunkReasoning {
			thinking++
		}
	}
	if thinking == len(chunks) {
		return reasoning // all reasoning chunks: they take all n
	}
	return min(max(reasoning, thinking), n-(len(chunks)-thinking))
}

// apportionKinds shares n output tokens out over the chunks: with the
// reasoning tokens known (reasoning >= 0), those over the reasoning chunks
// and the rest over the others; otherwise n over all of them. Reasoning
// that was not streamed (OpenAI's hidden reasoning) was done by the first
// chunk, which carries it, so that the chunks still add up to n without
// adding to any gap between tokens; with only reasoning chunks, they take
// all n.
func apportionKinds(chunks []record.Chunk, weights []int, n, reasoning int) {
	var thinking, other []int
	for i, c := range chunks {
		if reasoning >= 0 && c.Kind == record.ChunkReasoning {
			thinking = append(thinking, i)
		} else {
			other = append(other, i)
		}
	}
	switch {
	case len(other) == 0:
		apportion(chunks, weights, thinking, n)
	case reasoning <= 0:
		apportion(chunks, weights, other, n)
	case len(thinking) == 0:
		apportion(chunks, weights, other, n-reasoning)
		chunks[0].Tokens += reasoning
	default:
		apportion(chunks, weights, thinking, reasoning)
		apportion(chunks, weights, other, n-reasoning)
	}
}

// apportion spreads n tokens over the chunks at idx in proportion to their
// text bytes (largest remainder), giving every chunk at least one token
// when n allows. It is how multi-token chunks get their share when the
// server reports only a total.
func apportion(chunks []record.Chunk, weights []int, idx []int, n int) {
	if len(idx) == 0 {
		return
	}
	if n < len(idx) {
		// Fewer tokens than token-bearing chunks: the server's count is
		// below what was streamed; keep one a chunk for timing and let
		// the record's usage count stand.
		for _, i := range idx {
			chunks[i].Tokens = 1
		}
		return
	}
	total := 0
	for _, i := range idx {
		total += max(weights[i], 1)
	}
	spare := n - len(idx) // tokens beyond one a chunk
	given := 0
	type rem struct{ i, r int }
	rems := make([]rem, len(idx))
	for j, i := range idx {
		w := max(weights[i], 1)
		extra := spare * w / total
		rems[j] = rem{i, spare * w % total}
		chunks[i].Tokens = 1 + extra
		given += extra
	}
	sort.SliceStable(rems, func(a, b int) bool { return rems[a].r > rems[b].r })
	for j := 0; j < spare-given; j++ {
		chunks[rems[j].i].Tokens++
	}
}
