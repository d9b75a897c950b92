package trace

import (
	"errors"
	"io"
	"math"

	"github.com/tpsbench/tpsbench/record"
)

// records reads tpsbench records (from `run` or `proxy`) as a trace: a
// request arrived when it was scheduled (the proxy: when it came in), with
// the prompt tokens the server counted and the output it made (or, for
// one that failed, the budget it asked).
type records struct {
	rd    *record.Reader
	stats *Stats
	rec   record.Record
}

func newRecords(r io.Reader, name string, stats *Stats, bad func(error)) *records {
	rd := record.NewReader(r, name)
	// one bad line (a writer's, a hand's) costs that request, not the
	// replay
	rd.SkipBad(bad)
	return &records{rd: rd, stats: stats}
}

func (s *records) next(e *Entry) (int64, error) {
	for {
		if err := s.rd.Next(&s.rec); errors.Is(err, record.ErrPartialLine) {
			s.stats.Skipped++ // what a killed writer leaves: the trace ends before it
			return 0, io.EOF
		} else if err != nil {
			return 0, err // io.EOF at the end; bad lines name themselves
		}
		r := &s.rec
		out := r.OutputTokens
		if !r.OK() || out == 0 {
			out = r.MaxTokens
		}
		if r.Outputless() {
			out = 0 // nothing to generate: its inputs are the request
		}
		if r.Warmup || r.PromptTokens < 1 || out < 1 && !r.Outputless() {
			s.stats.Skipped++
			continue
		}
		*e = Entry{Line: s.rd.Line(), InputTokens: r.PromptTokens, OutputTokens: out, Inputs: r.Inputs, AudioSeconds: r.AudioSeconds, Request: r.RequestPrompt}
		if p := r.Prefix; p != nil && len(p.Blocks) > 0 && p.Bytes > 0 {
			// the fingerprint's blocks are of bytes; in tokens a block is
			// its share of the prompt's
			e.Blocks = p.Blocks
			e.BlockTokens = max(1, int(math.Round(float64(r.PromptTokens)*float64(p.BlockBytes)/float64(p.Bytes))))
			if len(e.Blocks)*e.BlockTokens > e.InputTokens {
				e.Blocks = e.Blocks[:e.InputTokens/e.BlockTokens]
			}
		}
		return r.Abs(r.Scheduled), nil
	}
}
