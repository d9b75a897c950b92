package main

import (
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/tpsbench/tpsbench/engine"
)

// engineFlags choose and size the embedded engine.
type engineFlags struct {
	model      string
	format     string
	threads    int
	maxSeqs    int
	seed       uint64
	preset     string
	chunked    bool
	maxPrefill int
	prefix     bool
	kvCacheMB  int
	kvDtype    string
	reasoning  int
	parser     string
	pooling    string
	changed    func(name string) bool
}

// register defines the engine's flags on cmd, each named with prefix
// (run's are --engine-model and the like, serve's --model).
func (e *engineFlags) register(cmd *cobra.Command, prefix string) {
	e.define(cmd.Flags(), prefix)
	e.changed = func(name string) bool { return cmd.Flags().Changed(prefix + name) }
}

// define is the one list of the engine's flags: run's, serve's, and the
// arguments run starts its engine process with (serveArgs) all come
// from it.
func (e *engineFlags) define(f *pflag.FlagSet, prefix string) {
	f.StringVar(&e.model, prefix+"model", engine.DefaultModel, "a GGUF file, or a built-in shape with dummy weights: "+strings.Join(engine.ShapeNames(), ", "))
	f.StringVar(&e.format, prefix+"dtype", "", "weight format of a built-in shape: f32 (default), f16, q8_0, q4_0")
	f.IntVar(&e.threads, prefix+"threads", 0, "threads for the engine's matrix products (default: all cores)")
	f.IntVar(&e.maxSeqs, prefix+"max-num-seqs", 16, "sequences decoding together (continuous batching); more requests wait in a queue")
	f.Uint64Var(&e.seed, prefix+"seed", 1, "seed of a built-in shape's dummy weights")
	f.StringVar(&e.preset, prefix+"preset", "", "scheduler preset: throughput (64 sequences) or latency (4 sequences, chunked prefill)")
	f.BoolVar(&e.chunked, prefix+"enable-chunked-prefill", false, "split long prompts into chunks interleaved with other sequences' decoding")
	f.IntVar(&e.maxPrefill, prefix+"max-prefill-tokens", 256, "with chunked prefill: prompt tokens in one step")
	f.BoolVar(&e.prefix, prefix+"enable-prefix-caching", false, "reuse the KV cache of prompt blocks seen before (16-token blocks, hash-chained as in vLLM)")
	f.IntVar(&e.kvCacheMB, prefix+"kv-cache-mb", 256, "memory for the prefix cache; least recently used blocks are evicted past it")
	f.StringVar(&e.kvDtype, prefix+"kv-cache-dtype", "f32", "what the KV cache holds: f32, or f16 (half the memory, as llama.cpp's default cache; attention rounds as llama.cpp's does over it)")
	f.IntVar(&e.reasoning, prefix+"reasoning", 0, "stream the first N tokens of every chat answer as reasoning_content, as a reasoning model does (to try reasoning figures end to end)")
	f.StringVar(&e.pooling, prefix+"pooling", "", "how /v1/embeddings pools a prompt's final hidden states: mean, last or cls, then normalized to length 1 (llama.cpp's server's --pooling; default: the file's pooling_type, else last)")
	f.StringVar(&e.parser, prefix+"reasoning-parser", "", "split chat answers at their </think> tag into reasoning_content and content, as vLLM's reasoning parsers do: deepseek_r1 (DeepSeek-R1 and its distilled models) or qwen3")
}

func (e *engineFlags) load() (*engine.Engine, error) {
	opts, err := e.options()
	if err != nil {
		return nil, err
	}
	return engine.Load(opts)
}

// options checks the flags and gives the engine's options, without
// loading anything.
// with is e with what an experiment's variant changes: the model, the
// weight format, prefix caching.
func (e engineFlags) with(o engine.Options) engineFlags {
	e.model, e.format, e.prefix = o.Model, o.Format, o.Sched.PrefixCaching
	return e
}

func (e *engineFlags) options() (engine.Options, error) {
	if e.kvCacheMB < 1 {
		return engine.Options{}, usagef("kv-cache-mb must be at least 1")
	}
	opts := engine.Options{Model: e.model, Format: e.format, Threads: e.threads, Seed: e.seed, KVCache: e.kvDtype,
		Reasoning: e.reasoning, ReasoningParser: e.parser, Pooling: e.pooling}
	opts.Sched.MaxSeqs, opts.Sched.ChunkedPrefill, opts.Sched.MaxPrefillTokens = e.maxSeqs, e.chunked, e.maxPrefill
	opts.Sched.PrefixCaching, opts.Sched.PrefixCacheBytes = e.prefix, e.kvCacheMB<<20
	if e.preset != "" {
		p, err := engine.Preset(e.preset)
		if err != nil {
			return opts, usageError{err}
		}
		// flags given explicitly override the preset
		if !e.changed("max-num-seqs") {
			opts.Sched.MaxSeqs = p.MaxSeqs
		}
		if !e.changed("enable-chunked-prefill") {
			opts.Sched.ChunkedPrefill = p.ChunkedPrefill
		}
		if !e.changed("max-prefill-tokens") && p.MaxPrefillTokens > 0 {
			opts.Sched.MaxPrefillTokens = p.MaxPrefillTokens
		}
		opts.Sched.StallFactor = p.StallFactor
	}
	if opts.Sched.MaxPrefillTokens < 1 {
		return opts, usagef("max-prefill-tokens must be at least 1")
	}
	if err := opts.Validate(); err != nil {
		return opts, usageError{err} // a typo, not a failure of the engine's
	}
	return opts, nil
}

func newServeCmd() *cobra.Command {
	var ef engineFlags
	var addr, apiKey, apiKeyEnv string
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve a model with the embedded engine: an OpenAI-compatible API (/v1/completions, /v1/chat/completions, /v1/embeddings, /v1/models, /health, /metrics, /tokenize)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if apiKey == "" {
				apiKey = os.Getenv(apiKeyEnv)
			}
			e, err := ef.load()
			if err != nil {
				return err
			}
			defer e.Close()
			e.Handler.APIKey = apiKey
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return e.Serve(ctx, addr, func(url string) { engine.Announce(cmd.ErrOrStderr(), e, url) })
		},
	}
	ef.register(cmd, "")
	cmd.Flags().StringVar(&addr, "addr", "127.0.0.1:8000", "listen address (loopback unless told otherwise)")
	cmd.Flags().StringVar(&apiKey, "api-key", "", "require this bearer token (prefer --api-key-env: a flag shows in the process list)")
	cmd.Flags().StringVar(&apiKeyEnv, "api-key-env", "TPSBENCH_API_KEY", "environment variable whose value, when set, is the required bearer token")
	return cmd
}

func mib(n int) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }
