// Package record holds the Record: the full timeline of one request, from
// which every figure tpsbench reports is computed (see docs/metrics.md).
//
// All stamps are nanoseconds since the run's epoch T0 (a wall-clock time in
// Unix nanoseconds). Within one run the offsets come from Go's monotonic
// clock, so differences between them are exact; T0 lets records of runs on
// different machines be placed on one time line when merged.
package record

import (
	"encoding/json"
	"time"
)

// SchemaVersion is written in every record. Readers accept every version up
// to this one. Version 2 added other_events (vLLM's convention times its
// first and last token from events that carry none); version 3 a chunk's
// kind (reasoning, tool call), the reasoning and tool-call counts, what a
// replayed trace asked (trace) and a prompt's fingerprint (prefix).
const SchemaVersion = 3

// MaxChunks bounds Record.Chunks: longer answers than any model gives
// today (128k tokens a chunk each) keep their first MaxChunks-1 chunks
// as they came and fold the rest into the last (ChunksFolded), so that a
// stream of millions of events neither holds gigabytes nor writes a line
// no reader takes.
const MaxChunks = 1 << 17

// MaxOtherEvents bounds Record.OtherEvents: a response has a role event
// and a finish event; a server sending millions of empty ones is not
// kept past this.
const MaxOtherEvents = 1 << 16

// Token count sources, in order of preference (docs/metrics.md).
const (
	SourceUsage     = "usage"     // the server's usage.completion_tokens
	SourceTokenizer = "tokenizer" // a client-side tokenizer's count of the text
	SourceChunks    = "chunks"    // the number of token-bearing chunks
)

// Failure kinds: the fixed list a failed request's Error.Kind is drawn from.
const (
	KindConnect     = "connect"      // could not connect or write the request
	KindTimeout     = "timeout"      // the per-request timeout passed
	KindHTTPStatus  = "http_status"  // the server answered with a non-2xx status
	KindStreamCut   = "stream_cut"   // the body ended or broke before the response was complete
	KindMalformed   = "malformed"    // the body was not the protocol it should be
	KindServerError = "server_error" // the server sent an error object in the stream
	KindEmpty       = "empty"        // the response completed without a single output token
	KindCanceled    = "canceled"     // tpsbench itself stopped the request (Ctrl-C past the grace period)
	// KindClientCancel is a request the run cancelled as it planned to
	// (a share of requests, as users who leave mid-answer): not a
	// failure, counted apart and kept out of the figures.
	KindClientCancel = "client_cancel"
)

// Kinds lists every failure kind, for reports that show all of them.
var Kinds = []string{KindConnect, KindTimeout, KindHTTPStatus, KindStreamCut, KindMalformed, KindServerError, KindEmpty, KindCanceled}

// Record is one request's timeline. Its JSON form is one line of a records
// file; field names are part of the file format.
type Record struct {
	V int `json:"v"`

	// Where the request belongs.
	Run       string `json:"run,omitempty"`  // run id, shared by every record of one run
	Step      string `json:"step,omitempty"` // step label (a sweep level, a compared model)
	StepIndex int    `json:"step_index"`
	Seq       int    `json:"seq"` // index of the request within its step
	Warmup    bool   `json:"warmup,omitempty"`
	Model     string `json:"model,omitempty"`
	URL       string `json:"url,omitempty"` // the endpoint, never with credentials
	API       string `json:"api,omitempty"` // "chat", "completions"
	Stream    bool   `json:"stream"`
	// Session and Turn place a turn of a multi-turn session, both from 1
	// (0 outside sessions); a session's turns carry the history before.
	Session int `json:"session,omitempty"`
	Turn    int `json:"turn,omitempty"`
	// Phase marks a request started while the load rose (ramp_up) or fell
	// away (cool_down): kept out of the step's figures, counted apart.
	Phase       string  `json:"phase,omitempty"`
	Concurrency int     `json:"concurrency,omitempty"` // the step's concurrency limit
	Rate        float64 `json:"rate,omitempty"`        // the step's asked request rate, requests/s

	// The timeline, in ns since T0.
	T0        int64 `json:"t0"`
	Scheduled int64 `json:"scheduled"`
	Sent      int64 `json:"sent"`
	First     int64 `json:"first,omitempty"` // zero when no output token arrived
	Last      int64 `json:"last,omitempty"`
	Done      int64 `json:"done"`

	// Chunks holds every token-bearing chunk as [ns after Sent, tokens],
	// or [ns after Sent, tokens, kind] for a reasoning or tool-call chunk.
	Chunks []Chunk `json:"chunks,omitempty"`
	// OtherEvents holds when each event with choices but no token came
	// (ns after Sent): a role-only first event, a finish-only last one,
	// empty content. tpsbench's figures leave them out; vLLM's benchmark
	// times its first and last token from any such event (at most
	// MaxOtherEvents are kept).
	OtherEvents []int64 `json:"other_events,omitempty"`

	// Counts.
	OutputTokens int    `json:"output_tokens"`
	TokenSource  string `json:"token_source,omitempty"`
	UsageTokens  int    `json:"usage_tokens,omitempty"` // usage.completion_tokens as reported, when reported
	// UsageSuspect says why the server's usage was not believed (a count
	// far above what was streamed, a cumulative count that fell); the
	// tokens were then counted from the stream (TokenSource).
	UsageSuspect string `json:"usage_suspect,omitempty"`
	Tokenizer    string `json:"tokenizer,omitempty"` // the client tokenizer that counted, for source "tokenizer"
	// TokenizerTokens is the client tokenizer's count of the output when
	// one is configured, even where usage is the count: GenAI-Perf's
	// convention counts with its tokenizer always.
	TokenizerTokens int `json:"tokenizer_tokens,omitempty"`
	PromptTokens    int `json:"prompt_tokens,omitempty"`
	// CachedTokens is the part of PromptTokens the server says its cache
	// held (usage's prompt_tokens_details.cached_tokens, Anthropic's
	// cache reads), so their prefill was skipped.
	CachedTokens int `json:"cached_tokens,omitempty"`
	MaxTokens    int `json:"max_tokens,omitempty"`
	// Images, Audios and Videos are how many of each went with the
	// prompt (or, audio, were transcribed), RequestBytes the request
	// body's size (the media in it, base64 in JSON).
	Images       int `json:"images,omitempty"`
	Audios       int `json:"audios,omitempty"`
	Videos       int `json:"videos,omitempty"`
	RequestBytes int `json:"request_bytes,omitempty"`
	// Upload is the ns from a connection in hand to the request written:
	// the time its body took to go out (Sent is its end; TTFT starts
	// there), which media make long.
	Upload int64 `json:"upload_ns,omitempty"`
	// HTTP is where the request's time went in the HTTP transport; nil
	// for a client that speaks no HTTP (the engine in process).
	HTTP *HTTPPhases `json:"http,omitempty"`
	// AudioSeconds is the length of the audio sent, where known (a WAV's
	// header): a transcription's real-time factor is it over E2E.
	AudioSeconds float64 `json:"audio_seconds,omitempty"`
	// Inputs is how many inputs a request of an API that generates no
	// tokens carried (an embeddings batch); 0 for a generating API. Such a
	// request completes with vectors, not tokens: its figures are its
	// latency and its inputs and prompt tokens per second.
	Inputs int `json:"inputs,omitempty"`
	// ReasoningTokens is the part of OutputTokens that was reasoning: the
	// server's usage.completion_tokens_details.reasoning_tokens when it
	// reports them (streamed or hidden), else the tokens of the reasoning
	// chunks. ToolCallTokens is the part in tool-call argument deltas.
	ReasoningTokens int `json:"reasoning_tokens,omitempty"`
	ToolCallTokens  int `json:"tool_call_tokens,omitempty"`

	// What the server said.
	Status       int    `json:"status,omitempty"`
	ResponseID   string `json:"response_id,omitempty"`
	FinishReason string `json:"finish_reason,omitempty"`
	// Correct is the verdict on a graded request's answer (a question of
	// an accuracy set); nil where none was graded. AnswerHash is the
	// answer's fingerprint (Graded), by which steps that asked the same
	// questions compare their answers (batch invariance).
	Correct    *bool  `json:"correct,omitempty"`
	AnswerHash string `json:"answer_hash,omitempty"`
	Error      *Error `json:"error,omitempty"`
	// Retries counts the times the request went out again on a fresh
	// connection because a kept-alive one was closed before any byte of
	// an answer came back (llama.cpp's server closes every connection
	// after its answer); Sent is the last attempt's.
	Retries int `json:"retries,omitempty"`

	// Clamped names the rules a writer brought this record within
	// (Clamp): what a client or a server claimed past a bound (a budget
	// of 9e12 tokens, a stamp out of order) was cut to it when written.
	Clamped string `json:"clamped,omitempty"`
	// ChunksFolded counts the chunks that came after MaxChunks: they are
	// folded into the last chunk, which carries their tokens and the last
	// one's arrival, so counts, first and last stay exact.
	ChunksFolded int `json:"chunks_folded,omitempty"`

	// Streamed is the tokens the chunks said as they came (one a chunk,
	// or cumulative usage's), before usage or a tokenizer settled the
	// count: what a live view has counted of this request so far. It is
	// not written to records files.
	Streamed int `json:"-"`

	// Server holds timings the server reported about itself (Ollama's
	// durations), next to the client's own.
	Server *ServerTiming `json:"server,omitempty"`

	// Trace is what the trace a replay followed asked of this request.
	Trace *TraceRef `json:"trace,omitempty"`
	// Prefix fingerprints the prompt for replays (the proxy's records):
	// which blocks of it other requests shared, never its text.
	Prefix *Prefix `json:"prefix,omitempty"`
	// RequestPrompt is the request's messages or prompt as sent, kept
	// only when asked for (proxy --record-prompts), for exact replays.
	RequestPrompt json.RawMessage `json:"request_prompt,omitempty"`
}

// TraceRef is what a replayed trace asked of a request, kept in its
// record so that how faithful the replay was can be judged from the
// replay's records alone.
type TraceRef struct {
	Line         int   `json:"line"`      // line of the trace file
	Offset       int64 `json:"offset_ns"` // its start as replayed: ns after the replay's (the trace's offset in its window, over the speed)
	InputTokens  int   `json:"input_tokens"`
	OutputTokens int   `json:"output_tokens"`
	// ReusedTokens is the prompt tokens in prefix blocks an earlier
	// request of the trace had: what a prefix cache could reuse.
	ReusedTokens int `json:"reused_tokens,omitempty"`
}

// Prefix is a privacy-safe fingerprint of a prompt: a chained, keyed hash
// of each whole block of BlockBytes bytes of it as sent (its messages' or
// prompt's JSON), so that prompts sharing a prefix share leading hashes
// (as a server's prefix cache sees them), and Bytes, its length.
type Prefix struct {
	Blocks     []uint64 `json:"blocks,omitempty"`
	BlockBytes int      `json:"block_bytes"`
	Bytes      int      `json:"bytes"`
}

// ServerTiming is what a server says it spent, in ns.
type ServerTiming struct {
	TotalNS      int64 `json:"total_ns,omitempty"`
	LoadNS       int64 `json:"load_ns,omitempty"`
	PromptEvalNS int64 `json:"prompt_eval_ns,omitempty"`
	EvalNS       int64 `json:"eval_ns,omitempty"`
}

// Chunk is one token-bearing chunk: when it arrived (ns after Sent), how
// many output tokens it carried, and what they were.
type Chunk struct {
	At     int64
	Tokens int
	Kind   ChunkKind
}

// ChunkKind says what a chunk's tokens were. The answer is the zero kind,
// so records written before kinds existed read as all answer.
type ChunkKind uint8

const (
	// ChunkAnswer is answer text (content, a completion's text); a chunk
	// with any answer text is an answer chunk.
	ChunkAnswer ChunkKind = iota
	// ChunkReasoning carries only reasoning text (reasoning_content).
	ChunkReasoning
	// ChunkToolCall carries only tool-call (or function-call) deltas.
	ChunkToolCall
	numChunkKinds
)

// Error says why a request failed.
type Error struct {
	Kind    string `json:"kind"`
	Message string `json:"message"`
}

// OK reports whether the request completed and counts in latency and TPS figures.
func (r *Record) OK() bool { return r.Error == nil }

// Outputless reports whether r is a request of an API that generates no
// tokens (Inputs): it has an end-to-end latency and no token timings.
func (r *Record) Outputless() bool { return r.Inputs > 0 }

// CancelledByPlan reports whether the run cancelled r as planned
// (KindClientCancel).
func (r *Record) CancelledByPlan() bool { return r.Error != nil && r.Error.Kind == KindClientCancel }

// Fail marks the record failed, keeping the first failure only.
func (r *Record) Fail(kind, msg string) {
	if r.Error == nil {
		r.Error = &Error{Kind: kind, Message: msg}
	}
}

// Abs returns the absolute Unix-nanosecond time of a stamp of this record.
func (r *Record) Abs(stamp int64) int64 { return r.T0 + stamp }

// TTFT is first - sent.
func (r *Record) TTFT() time.Duration { return time.Duration(r.First - r.Sent) }

// TTST is the time to the second token-bearing chunk after the first, as
// AIPerf times it (second response - first response); none with fewer
// than two chunks.
func (r *Record) TTST() (time.Duration, bool) {
	if len(r.Chunks) < 2 {
		return 0, false
	}
	return time.Duration(r.Chunks[1].At - r.Chunks[0].At), true
}

// PrefillTPS is the prompt's tokens over the time to the first token
// (AIPerf's prefill throughput per user); none without a prompt count
// or a first token after the send.
func (r *Record) PrefillTPS() (float64, bool) {
	if r.PromptTokens <= 0 || r.OutputTokens <= 0 || r.First <= r.Sent {
		return 0, false
	}
	return float64(r.PromptTokens) / (float64(r.First-r.Sent) / 1e9), true
}

// E2E is last - sent: to the last token, or for a request that generates
// none (Outputless), to the answer's end.
func (r *Record) E2E() time.Duration {
	if r.Outputless() {
		return time.Duration(r.Done - r.Sent)
	}
	return time.Duration(r.Last - r.Sent)
}

// ClientLag is sent - scheduled: how late the client was against the schedule.
func (r *Record) ClientLag() time.Duration { return time.Duration(r.Sent - r.Scheduled) }

// RequestTPS is output tokens over last - sent (what a user feels).
func (r *Record) RequestTPS() (float64, bool) {
	e2e := r.Last - r.Sent
	if r.OutputTokens <= 0 || e2e <= 0 {
		return 0, false
	}
	return float64(r.OutputTokens) / (float64(e2e) / 1e9), true
}

// TPOT is (last - first) / (n - 1), defined only when n > 1 and the
// tokens came over time: a non-streamed response (or a stream whose
// tokens all came in one read) has none, not a TPOT of 0.
func (r *Record) TPOT() (time.Duration, bool) {
	if r.OutputTokens <= 1 || r.Last <= r.First {
		return 0, false
	}
	return time.Duration(float64(r.Last-r.First) / float64(r.OutputTokens-1)), true
}

// Arrivals calls fn with each arrival: the chunks read at one instant (one
// read from the connection stamps them all), with when they came (ns
// after sent), their tokens, and how many chunks they were.
func (r *Record) Arrivals(fn func(at int64, tokens, chunks int)) {
	for i := 0; i < len(r.Chunks); {
		at, tokens, j := r.Chunks[i].At, 0, i
		for ; j < len(r.Chunks) && r.Chunks[j].At == at; j++ {
			tokens += r.Chunks[j].Tokens
		}
		fn(at, tokens, j-i)
		i = j
	}
}

// ITLs calls fn with every inter-token latency sample: an arrival g after
// the one before it, carrying k tokens (in one chunk or in several read
// at once), gives k samples of g/k, passed as one call with count k (a
// chunk that claims a billion tokens costs one call, not a billion).
// Tokens of the first arrival give none: TTFT covers them. An arrival
// without tokens gives none and is not an arrival a gap is timed from:
// the samples add up to the time from the first token to the last.
func (r *Record) ITLs(fn func(d time.Duration, count int)) {
	r.ITLsAt(func(_ int64, d time.Duration, count int) { fn(d, count) })
}

// ITLsAt is ITLs with when each arrival came (ns after sent).
func (r *Record) ITLsAt(fn func(at int64, d time.Duration, count int)) {
	prev, first := int64(0), true
	r.Arrivals(func(at int64, tokens, _ int) {
		if tokens <= 0 {
			return
		}
		if !first {
			fn(at, time.Duration((at-prev)/int64(tokens)), tokens)
		}
		prev, first = at, false
	})
}

// Batched is how many chunks arrived in the same read as the chunk before
// them: a server (or a network) that batches its output.
func (r *Record) Batched() int {
	arrivals := 0
	r.Arrivals(func(int64, int, int) { arrivals++ })
	return len(r.Chunks) - arrivals
}

// ChunkGaps calls fn with every raw gap between consecutive chunks (what
// vLLM calls ITL).
func (r *Record) ChunkGaps(fn func(time.Duration)) {
	for i := 1; i < len(r.Chunks); i++ {
		fn(time.Duration(r.Chunks[i].At - r.Chunks[i-1].At))
	}
}

// ReasoningSpan returns the stamps (ns since T0) of the first and last
// reasoning chunks, and whether there was one.
func (r *Record) ReasoningSpan() (first, last int64, ok bool) { return r.span(true) }

// AnswerSpan returns the stamps of the first and last chunks that were
// not reasoning, and whether there was one.
func (r *Record) AnswerSpan() (first, last int64, ok bool) { return r.span(false) }

func (r *Record) span(reasoning bool) (first, last int64, ok bool) {
	for _, c := range r.Chunks {
		if (c.Kind == ChunkReasoning) != reasoning {
			continue
		}
		if !ok {
			first, ok = r.Sent+c.At, true
		}
		last = r.Sent + c.At
	}
	return first, last, ok
}

// TTFR is the time to the first reasoning token: the first reasoning
// chunk's arrival - sent; none without one.
func (r *Record) TTFR() (time.Duration, bool) {
	first, _, ok := r.span(true)
	return time.Duration(first - r.Sent), ok
}

// TTFA is the time to the first answer token (AIPerf's TTFO, GenAI-Perf's
// TTFT): the first chunk that is not reasoning - sent; none when the
// output was all reasoning. Without reasoning it is TTFT.
func (r *Record) TTFA() (time.Duration, bool) {
	first, _, ok := r.span(false)
	return time.Duration(first - r.Sent), ok
}

// AnswerTokens is the output that was not reasoning (tool calls included).
func (r *Record) AnswerTokens() int { return r.OutputTokens - r.ReasoningTokens }

// ReasoningTPS is the decode rate of the reasoning, as 1/TPOT is of the
// whole: (reasoning tokens - 1) over its first to last chunk. It needs
// two reasoning tokens streamed over time; hidden reasoning has none.
func (r *Record) ReasoningTPS() (float64, bool) {
	first, last, ok := r.span(true)
	return phaseTPS(r.ReasoningTokens, first, last, ok)
}

// AnswerTPS is the decode rate of the answer: (answer tokens - 1) over
// its first to last chunk.
func (r *Record) AnswerTPS() (float64, bool) {
	first, last, ok := r.span(false)
	return phaseTPS(r.AnswerTokens(), first, last, ok)
}

func phaseTPS(tokens int, first, last int64, ok bool) (float64, bool) {
	if !ok || tokens <= 1 || last <= first {
		return 0, false
	}
	return float64(tokens-1) / (float64(last-first) / 1e9), true
}
