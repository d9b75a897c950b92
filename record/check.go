package record

import (
	"fmt"
	"slices"
	"strings"
)

// maxAudioSeconds bounds a record's audio: a day of it is past any
// request a server takes.
const maxAudioSeconds = 86400

// MaxTokens bounds every token count a record holds (output, prompt,
// usage, a chunk's): no request generates a billion tokens, and with the
// bound, sums over billions of records cannot overflow.
const MaxTokens = 1 << 30

// maxStamp bounds stamps (73 years in ns) and maxT0 the epoch (year 2116),
// so that T0 + stamp cannot overflow int64.
const (
	maxStamp = 1 << 61
	maxT0    = 1 << 62
	// a request is retried once for each pooled connection found closed
	// (client.HTTP), never more than a pool holds
	maxRetries = 1 << 20
)

// validate rejects records whose figures would be nonsense: what every
// reader of records refuses.
func (r *Record) validate() error { return r.check(false) }

// Clamp brings a record within the rules validate holds it to, so that
// whatever a writer writes, a reader reads: a count a client or a server
// claimed past its bound is cut to it, a stamp out of order is moved to
// its neighbour, a trace reference or prefix that does not hold together
// is dropped. Clamped names the rules that were applied. Writers clamp
// every record they write.
func (r *Record) Clamp() {
	if len(r.Chunks) > MaxChunks {
		tail := r.Chunks[MaxChunks:]
		r.Chunks = r.Chunks[:MaxChunks]
		for _, c := range tail {
			r.foldChunk(c)
		}
	}
	if r.check(false) != nil {
		_ = r.check(true) // fixing, check returns nil
	}
}

// AppendChunk adds a chunk that arrived; past MaxChunks it is folded into
// the last one instead, and AppendChunk returns false.
func (r *Record) AppendChunk(c Chunk) bool {
	if len(r.Chunks) < MaxChunks {
		r.Chunks = append(r.Chunks, c)
		return true
	}
	r.foldChunk(c)
	return false
}

// foldChunk adds c's tokens and arrival to the last chunk; a chunk of
// another kind makes it an answer chunk, the kind that claims none.
func (r *Record) foldChunk(c Chunk) {
	last := &r.Chunks[len(r.Chunks)-1]
	last.At = max(last.At, c.At)
	last.Tokens = min(last.Tokens+max(c.Tokens, 0), MaxTokens)
	if last.Kind != c.Kind {
		last.Kind = ChunkAnswer
	}
	r.ChunksFolded++
}

// check holds r to each rule in turn: with fix false it returns the first
// rule broken; with fix true it repairs each broken rule in place (rules
// are ordered so that a repair never breaks a rule checked before it) and
// notes it in r.Clamped.
func (r *Record) check(fix bool) error {
	c := checker{fix: fix}
	c.counts(r)
	c.references(r)
	c.stamps(r)
	// chunks are stamped after sent, and before done
	end := int64(maxStamp)
	if r.Done >= r.Sent {
		end = min(end, r.Done-r.Sent)
	}
	c.chunks(r, end)
	c.otherEvents(r, end)
	if fix && len(c.fixed) > 0 {
		r.Clamped = strings.Join(c.fixed, ", ")
	}
	return c.err
}

// counts: token counts, retries, and the reasoning and tool-call tokens
// within the output.
func (c *checker) counts(r *Record) {
	if r.OutputTokens < 0 || r.PromptTokens < 0 || r.UsageTokens < 0 || r.MaxTokens < 0 {
		if c.broke("token counts", fmt.Errorf("record %d: negative token count", r.Seq)) {
			clampCounts(&r.OutputTokens, &r.PromptTokens, &r.UsageTokens, &r.MaxTokens)
		}
	}
	if r.OutputTokens > MaxTokens || r.PromptTokens > MaxTokens || r.UsageTokens > MaxTokens || r.MaxTokens > MaxTokens {
		if c.broke("token counts", fmt.Errorf("record %d: a token count over %d", r.Seq, MaxTokens)) {
			clampCounts(&r.OutputTokens, &r.PromptTokens, &r.UsageTokens, &r.MaxTokens)
		}
	}
	if r.CachedTokens < 0 || r.CachedTokens > r.PromptTokens {
		if c.broke("cached tokens", fmt.Errorf("record %d: %d cached tokens of %d prompt tokens", r.Seq, r.CachedTokens, r.PromptTokens)) {
			r.CachedTokens = min(max(r.CachedTokens, 0), r.PromptTokens)
		}
	}
	if r.Upload < 0 || r.Upload > maxStamp {
		if c.broke("upload", fmt.Errorf("record %d: upload of %d ns", r.Seq, r.Upload)) {
			r.Upload = 0
		}
	}
	c.phases(r)
	c.answerHash(r)
	if r.Images < 0 || r.Audios < 0 || r.Videos < 0 || r.RequestBytes < 0 || r.Inputs < 0 || r.Inputs > MaxTokens || !(r.AudioSeconds >= 0 && r.AudioSeconds <= maxAudioSeconds) {
		if c.broke("request size", fmt.Errorf("record %d: %d images, %d audios (%g s), %d videos, %d inputs, %d bytes", r.Seq, r.Images, r.Audios, r.AudioSeconds, r.Videos, r.Inputs, r.RequestBytes)) {
			r.Images, r.Audios, r.Videos, r.RequestBytes = max(r.Images, 0), max(r.Audios, 0), max(r.Videos, 0), max(r.RequestBytes, 0)
			if !(r.AudioSeconds >= 0 && r.AudioSeconds <= maxAudioSeconds) {
				r.AudioSeconds = 0
			}
			r.Inputs = min(max(r.Inputs, 0), MaxTokens)
		}
	}
	if r.Inputs > 0 && (r.OutputTokens > 0 || len(r.Chunks) > 0) {
		if c.broke("inputs", fmt.Errorf("record %d: a request of %d inputs generates no tokens, yet has %d", r.Seq, r.Inputs, r.OutputTokens)) {
			r.Inputs = 0
		}
	}
	if r.Session < 0 || r.Turn < 0 || (r.Session == 0) != (r.Turn == 0) {
		if c.broke("session", fmt.Errorf("record %d: session %d, turn %d: both from 1, or both 0 outside sessions", r.Seq, r.Session, r.Turn)) {
			r.Session, r.Turn = 0, 0
		}
	}
	if r.Phase != "" && r.Phase != "ramp_up" && r.Phase != "cool_down" {
		if c.broke("phase", fmt.Errorf("record %d: phase %.20q: want ramp_up, cool_down or none", r.Seq, r.Phase)) {
			r.Phase = ""
		}
	}
	if r.Retries < 0 || r.Retries > maxRetries {
		if c.broke("retries", fmt.Errorf("record %d: %d retries out of range", r.Seq, r.Retries)) {
			r.Retries = min(max(r.Retries, 0), maxRetries)
		}
	}
	if r.TokenizerTokens < 0 || r.TokenizerTokens > MaxTokens {
		if c.broke("tokenizer count", fmt.Errorf("record %d: tokenizer count %d out of range", r.Seq, r.TokenizerTokens)) {
			clampCounts(&r.TokenizerTokens)
		}
	}
	if r.ReasoningTokens < 0 || r.ToolCallTokens < 0 || r.ReasoningTokens > MaxTokens || r.ToolCallTokens > MaxTokens ||
		r.ReasoningTokens+r.ToolCallTokens > r.OutputTokens {
		if c.broke("reasoning and tool-call counts", fmt.Errorf("record %d: %d reasoning and %d tool-call tokens do not fit in %d output tokens",
			r.Seq, r.ReasoningTokens, r.ToolCallTokens, r.OutputTokens)) {
			clampCounts(&r.ReasoningTokens, &r.ToolCallTokens)
			r.ReasoningTokens = min(r.ReasoningTokens, r.OutputTokens)
			r.ToolCallTokens = min(r.ToolCallTokens, r.OutputTokens-r.ReasoningTokens)
		}
	}
}

// references: the trace line and the prompt's prefix a record points to.
func (c *checker) references(r *Record) {
	if t := r.Trace; t != nil && (t.Line < 0 || t.Offset < 0 || t.Offset > maxStamp || t.InputTokens < 0 || t.InputTokens > MaxTokens ||
		t.OutputTokens < 0 || t.OutputTokens > MaxTokens || t.ReusedTokens < 0 || t.ReusedTokens > t.InputTokens) {
		if c.broke("trace reference", fmt.Errorf("record %d: trace reference %+v out of range", r.Seq, *t)) {
			r.Trace = nil
		}
	}
	if p := r.Prefix; p != nil && (p.BlockBytes < 1 || p.Bytes < 0 || len(p.Blocks) > p.Bytes/p.BlockBytes) {
		if c.broke("prefix", fmt.Errorf("record %d: prefix of %d blocks of %d bytes in %d bytes", r.Seq, len(p.Blocks), p.BlockBytes, p.Bytes)) {
			r.Prefix = nil
		}
	}
}

// stamps: t0 and the request's stamps in range, and in order.
func (c *checker) stamps(r *Record) {
	if r.T0 < 0 || r.T0 > maxT0 {
		if c.broke("t0", fmt.Errorf("record %d: t0 %d is not a time since 1970 before 2116", r.Seq, r.T0)) {
			r.T0 = min(max(r.T0, 0), maxT0)
		}
	}
	for _, st := range [...]*int64{&r.Scheduled, &r.Sent, &r.First, &r.Last, &r.Done} {
		if *st < -maxStamp || *st > maxStamp {
			if c.broke("stamps", fmt.Errorf("record %d: stamp %d is out of range", r.Seq, *st)) {
				*st = min(max(*st, -maxStamp), maxStamp)
			}
		}
	}
	if r.Error == nil && (r.Done < r.Sent || (r.OutputTokens > 0 && (r.First < r.Sent || r.Last < r.First || r.Last > r.Done))) {
		if c.broke("stamp order", fmt.Errorf("record %d: stamps out of order (sent %d, first %d, last %d, done %d)", r.Seq, r.Sent, r.First, r.Last, r.Done)) {
			r.Done = max(r.Done, r.Sent)
			if r.OutputTokens > 0 {
				r.First = min(max(r.First, r.Sent), r.Done)
				r.Last = min(max(r.Last, r.First), r.Done)
			}
		}
	}
}

// chunks: each chunk within the request (end ns after sent), its tokens
// in range, and the chunks in order.
func (c *checker) chunks(r *Record, end int64) {
	for i := range r.Chunks {
		ch := &r.Chunks[i]
		if ch.At < 0 || ch.At > end {
			if c.broke("chunk stamps", fmt.Errorf("record %d: chunk %d at %d ns after sent is outside the request (%d ns long)", r.Seq, i, ch.At, r.Done-r.Sent)) {
				ch.At = min(max(ch.At, 0), end)
			}
		}
		if ch.Tokens < 0 || ch.Tokens > MaxTokens {
			if c.broke("chunk tokens", fmt.Errorf("record %d: chunk %d carries %d tokens", r.Seq, i, ch.Tokens)) {
				clampCounts(&ch.Tokens)
			}
		}
		if i > 0 && ch.At < r.Chunks[i-1].At {
			if c.broke("chunk order", fmt.Errorf("record %d: chunk %d arrives before chunk %d", r.Seq, i, i-1)) {
				ch.At = r.Chunks[i-1].At
			}
		}
	}
}

// otherEvents: at most MaxOtherEvents, within the request and in order.
func (c *checker) otherEvents(r *Record, end int64) {
	if len(r.OtherEvents) > MaxOtherEvents {
		if c.broke("other events", fmt.Errorf("record %d: %d other events, more than %d", r.Seq, len(r.OtherEvents), MaxOtherEvents)) {
			r.OtherEvents = r.OtherEvents[:MaxOtherEvents]
		}
	}
	for i, at := range r.OtherEvents {
		if at < 0 || at > end || (i > 0 && at < r.OtherEvents[i-1]) {
			if c.broke("other events", fmt.Errorf("record %d: other event %d at %d ns after sent is outside the request or out of order", r.Seq, i, at)) {
				lo := int64(0)
				if i > 0 {
					lo = r.OtherEvents[i-1]
				}
				r.OtherEvents[i] = min(max(at, lo), end)
			}
		}
	}
}

// checker carries check's mode through its rules.
type checker struct {
	fix   bool
	err   error
	fixed []string
}

// broke is told of a rule broken. Checking, it keeps the first error and
// returns false; fixing, it notes the rule and returns true: repair it.
func (c *checker) broke(rule string, err error) bool {
	if !c.fix {
		if c.err == nil {
			c.err = err
		}
		return false
	}
	if !slices.Contains(c.fixed, rule) {
		c.fixed = append(c.fixed, rule)
	}
	return true
}

// clampCounts brings token counts into [0, MaxTokens].
func clampCounts(counts ...*int) {
	for _, n := range counts {
		*n = min(max(*n, 0), MaxTokens)
	}
}
