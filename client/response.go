// This file reads an answer, from its status line to its final record;
// http.go sends the request.

package client

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
	"time"

	"github.com/tpsbench/tpsbench/internal/httpserve"
	"github.com/tpsbench/tpsbench/record"
)

// readAnswer reads an answer from its status to its final record: a
// status that is not a success, or an encoding not asked for, fails the
// request; a stream, or a whole body, is read chunk by chunk as its
// bytes arrive (stamped when the kernel received them where tr learnt
// it), and the counts are settled (finish).
func (c *HTTP) readAnswer(ctx context.Context, tr *sendTrace, resp *http.Response, body io.Reader, req *Request, rec *record.Record) {
	clock := c.cfg.Clock
	rec.Status = resp.StatusCode
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		msg := errorBody(body)
		rec.Done = clock.Now()
		rec.Fail(record.KindHTTPStatus, fmt.Sprintf("HTTP %d %s%s", resp.StatusCode, http.StatusText(resp.StatusCode), msg))
		return
	}
	if enc := unaskedEncoding(resp.Header); enc != "" {
		rec.Done = clock.Now()
		rec.Fail(record.KindMalformed, unaskedEncodingMessage(enc))
		return
	}
	st := streamState{rec: rec, clock: clock, onToken: c.cfg.OnToken, onChunk: req.OnChunk, answer: req.Answer, tokenizer: c.cfg.Tokenizer}
	st.useAPI(c.cfg.API)
	if f := tr.arrival.Load(); f != nil {
		st.stamp = *f // the kernel's arrival time of each read's bytes
	}
	st.read(body, resp.Header.Get("Content-Type"), c.cfg.Stream)
	if st.err != nil {
		rec.Fail(classify(ctx, st.err, st.kind), failureMessage(ctx, st.err))
	}
	if rec.ResponseID == "" { // llama.cpp's and TGI's bodies name none
		rec.ResponseID = httpserve.Shorten(resp.Header.Get("X-Request-Id"), maxResponseID)
	}
	st.finish()
}

// errorBody reads a failed response's body for its OpenAI-style error message.
func errorBody(r io.Reader) string {
	b, _ := io.ReadAll(io.LimitReader(r, 64<<10))
	var ci chunkInfo
	if scanChunk(b, &ci) == nil && ci.errMsg != nil {
		return ": " + unquote(ci.errMsg)
	}
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return ""
	}
	if len(b) > 200 {
		b = append(b[:200:200], "..."...)
	}
	return ": " + strings.ToValidUTF8(string(b), "?")
}

// maxWholeAnswer bounds a whole (unstreamed) answer, apart from a
// stream's events: the largest measured is an embeddings batch, 11 MiB
// for 128 inputs of 4,096 dimensions as JSON floats (about 22 bytes a
// number), so a batch of the 2,048 inputs OpenAI takes at once is about
// 180 MiB. A variable: tests shorten it.
var maxWholeAnswer = 256 << 20

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
	for events := 1; ; events++ {
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
			st.fail(record.KindMalformed, fmt.Errorf("event %d: %w: %.80q", events, err, data))
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
	b, err := io.ReadAll(io.LimitReader(body, int64(maxWholeAnswer)+1))
	now := st.clock.Now()
	if st.stamp != nil {
		now = st.stampOf(st.stamp())
	}
	st.rec.Done = now
	if err != nil {
		st.fail(record.KindStreamCut, fmt.Errorf("reading body: %w", err))
		return
	}
	if len(b) > maxWholeAnswer {
		st.fail(record.KindMalformed, fmt.Errorf("whole answer longer than %d bytes (%d MiB; an embeddings batch of 2,048 inputs of 4,096 dimensions is about 180 MiB)", maxWholeAnswer, maxWholeAnswer>>20))
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
	st.take(&ci, now)
}

// maxResponseID bounds the answer's id a record keeps, from its body or
// its X-Request-Id: ids are tens of bytes, and a server's megabyte of id
// would be held in every record.
const maxResponseID = 128

// take records one decoded chunk that arrived at offset at.
func (st *streamState) take(ci *chunkInfo, at int64) {
	rec := st.rec
	if len(ci.id) > 0 && rec.ResponseID == "" {
		rec.ResponseID = httpserve.Shorten(string(ci.id), maxResponseID)
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
	}
	if ci.prompt > 0 { // counted beside the output's, or alone
		rec.PromptTokens = ci.prompt
	}
	if ci.cached > 0 {
		rec.CachedTokens = ci.cached
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
		if rec.TokenizerTokens < len(rec.Chunks) {
			// the chunks' count is the one used: the record says so, and
			// keeps the tokenizer's beside it
			rec.TokenSource = record.SourceChunks
		}
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
