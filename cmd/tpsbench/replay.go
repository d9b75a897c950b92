package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/tpsbench/tpsbench/trace"
	"github.com/tpsbench/tpsbench/workload"
)

// traceConfig is --trace and its options once checked.
type traceConfig struct {
	path string
	opts trace.Options
}

// resolveTrace checks --trace against the flags it cannot go with: a
// trace brings its own arrivals, lengths and prompts.
func resolveTrace(f *runFlags, changed func(string) bool) (*traceConfig, error) {
	if f.trace == "" {
		for _, name := range []string{"trace-format", "trace-speed", "trace-window", "trace-input-scale", "trace-max-input-tokens"} {
			if changed(name) {
				return nil, usagef("--%s goes with --trace", name)
			}
		}
		return nil, nil
	}
	for _, name := range []string{"sweep", "sweep-rates", "rate", "arrivals", "burstiness", "prompt", "prompts", "input-tokens", "max-tokens", "warmup", "find-max", "factor", "show-tokens", "multi-turn", "turns", "think-time", "think-time-stddev"} {
		if changed(name) {
			return nil, usagef("--trace sets each request's arrival, prompt and budget: drop --%s", name)
		}
	}
	c := &traceConfig{path: f.trace, opts: trace.Options{Format: f.traceFormat, Speed: f.traceSpeed, InputScale: f.traceScale, MaxInputTokens: f.traceMaxInput}}
	if f.traceWindow != "" {
		from, to, ok := strings.Cut(f.traceWindow, "-")
		var err1, err2 error
		if from != "" {
			c.opts.From, err1 = time.ParseDuration(from)
		}
		if to != "" {
			c.opts.To, err2 = time.ParseDuration(to)
		}
		if !ok || err1 != nil || err2 != nil {
			return nil, usagef("--trace-window %q: want FROM-TO in durations of the trace, FROM before TO, e.g. 10m-20m or 30s-", f.traceWindow)
		}
	}
	for flag, v := range map[string]float64{"--trace-speed": f.traceSpeed, "--trace-input-scale": f.traceScale} {
		if v == 0 { // the library's default, not a factor given
			return nil, usagef("%s 0: want a factor above 0, e.g. 2 or 0.5", flag)
		}
	}
	var bad *trace.OptionError
	if err := c.opts.Check(); errors.As(err, &bad) {
		return nil, usagef("--trace-%s %s: %s", bad.Option, bad.Value, bad.Want)
	} else if err != nil {
		return nil, usageError{err}
	}
	return c, nil
}

// replayStep is one step's replay of the trace: its schedule and
// workload, and the file it reads.
type replayStep struct {
	*trace.Replay
	file *os.File
}

// newReplay opens the trace for one step (each target replays it whole,
// or its shard's part), with prompts sized as syn is calibrated.
func (c *traceConfig) newReplay(syn workload.Synthetic, shardI, shardN, context int) (*replayStep, error) {
	file, err := os.Open(c.path)
	if err != nil {
		return nil, inputError{fmt.Errorf("opening the trace: %w", err)}
	}
	opts := c.opts
	opts.ShardI, opts.ShardN, opts.Context = shardI, shardN, context
	rd, err := trace.NewReader(file, c.path, opts)
	if err != nil {
		file.Close()
		return nil, inputError{err}
	}
	return &replayStep{Replay: trace.NewReplay(rd, syn), file: file}, nil
}

// previewEntries bounds the entries read ahead to warn of requests that
// will not fit.
const previewEntries = 1 << 16

// preview reads the first entries of the trace as a replay for a server
// of context tokens would, and says how many it would clip and the first
// one's line: what to warn of before the run.
func (c *traceConfig) preview(context int) (read, clipped, first int) {
	file, err := os.Open(c.path)
	if err != nil {
		return 0, 0, 0 // the replay itself says why
	}
	defer file.Close()
	opts := c.opts
	opts.Context = context
	rd, err := trace.NewReader(file, c.path, opts)
	if err != nil {
		return 0, 0, 0
	}
	for e := (trace.Entry{}); read < previewEntries && rd.Next(&e) == nil; read++ {
	}
	st := rd.Stats()
	return read, st.Clipped, st.FirstClipped
}

// replayErrors reports what the replays skipped and why one ended early:
// a trace that turned bad after the run began is an error once its
// figures are out.
func replayErrors(replays []*replayStep, stderr io.Writer, quiet bool) error {
	var errs []error
	for _, r := range replays {
		st := r.Stats()
		if !quiet && (st.Skipped > 0 || st.Late > 0) {
			fmt.Fprintf(stderr, "trace: %d requests replayed, %d skipped (records of warm-up or without a prompt or output count, rows failed in a BurstGPT log), %d out of arrival order by more than the reorder window (sent at once)\n",
				st.Entries, st.Skipped, st.Late)
		}
		if st.Bad > 0 {
			fmt.Fprintf(stderr, "trace: %d lines skipped that cannot be replayed (not valid records, or arriving decades after the first); the first: %v\n", st.Bad, st.FirstBad)
		}
		if st.Clipped > 0 {
			fmt.Fprintf(stderr, "trace: %d requests were replayed shorter than the trace asked, to fit the server's context or --trace-max-input-tokens (the first on line %d; --trace-input-scale scales every prompt instead)\n",
				st.Clipped, st.FirstClipped)
		}
		if err := r.Err(); err != nil {
			errs = append(errs, fmt.Errorf("the replay ended early: %w", err))
		} else if st.Entries == 0 {
			errs = append(errs, fmt.Errorf("%s: no request to replay (%d records skipped; a --trace-window past the trace's end holds none)", r.file.Name(), st.Skipped))
		}
	}
	return errors.Join(errs...)
}

func (r *replayStep) close() { r.file.Close() }
