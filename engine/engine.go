// Package engine starts the embedded inference engine: a model (a GGUF
// file, or a built-in shape with dummy weights), its scheduler and its
// OpenAI-compatible HTTP server, listening on loopback. The CLI runs it in
// a process of its own (StartProcess), so that the client measuring it
// shares no runtime with it.
package engine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/tpsbench/tpsbench/engine/chat"
	"github.com/tpsbench/tpsbench/engine/gguf"
	"github.com/tpsbench/tpsbench/engine/llama"
	"github.com/tpsbench/tpsbench/engine/sched"
	"github.com/tpsbench/tpsbench/engine/server"
	"github.com/tpsbench/tpsbench/engine/synth"
	"github.com/tpsbench/tpsbench/engine/tokenizer"
	"github.com/tpsbench/tpsbench/internal/httpserve"
)

// DefaultModel is the built-in model tpsbench run measures by default.
const DefaultModel = "15m"

// MaxThreads bounds Options.Threads: the workers spin between jobs, so
// thousands of them on a few cores turn a step of milliseconds into
// seconds, and past that into what looks like a hang.
const MaxThreads = 1024

// Options say what to serve and how.
type Options struct {
	Model   string // a GGUF path, or a built-in shape (synth.ShapeNames)
	Format  string // weight format of a built-in shape: f32, f16, q8_0, q4_0
	Threads int    // 0: all cores
	Seed    uint64 // dummy-weight seed of a built-in shape
	// KVCache is what the KV cache holds: gguf.F32 (the zero value) or
	// gguf.F16 (llama.Model.SetKVType)
	KVCache gguf.TensorType
	Sched   sched.Options
	// Reasoning makes the first Reasoning tokens of every chat answer
	// reasoning (server.Server.Reasoning), as a reasoning model's are.
	Reasoning int
	// ThinkTags splits chat answers at their </think> tag into reasoning
	// and content (server.Server.ThinkTags): DeepSeek-R1, Qwen3.
	ThinkTags bool
	// Pooling is how /v1/embeddings pools a prompt's hidden states (mean,
	// last, cls); "" takes the file's <arch>.pooling_type, else last.
	Pooling string
}

// Presets of the scheduler (docs/design.md): throughput first
// (a large batch) and latency first (a small batch, chunked prefill).
var Presets = map[string]sched.Options{
	"throughput": {MaxSeqs: 64},
	"latency":    {MaxSeqs: 4, ChunkedPrefill: true, MaxPrefillTokens: 256, StallFactor: 1.5},
}

// Engine is a loaded model being served.
type Engine struct {
	Name      string
	File      *gguf.File
	Model     *llama.Model
	Tokenizer *tokenizer.Tokenizer
	Sched     *sched.Scheduler
	Handler   *server.Server
}

// Load opens the model and starts its scheduler. Its threads keep every
// Go scheduler slot busy while it steps, so a client in the same process
// reads the served tokens late and in bursts: to measure token timing,
// serve it from another process (tpsbench run starts `tpsbench serve`).
func Load(opts Options) (*Engine, error) {
	if opts.Threads < 0 || opts.Threads > MaxThreads {
		return nil, fmt.Errorf("threads %d: want 0 (all cores) to %d", opts.Threads, MaxThreads)
	}
	if opts.Model == "" {
		opts.Model = DefaultModel
	}
	var f *gguf.File
	var name string
	if p, err := synth.Lookup(opts.Model); err == nil && !strings.Contains(opts.Model, "/") && !fileExists(opts.Model) {
		format := opts.Format
		if format == "" {
			format = "f32"
		}
		typ, err := gguf.ParseTensorType(format)
		if err != nil {
			return nil, err
		}
		b, err := synth.Bytes(p, typ, opts.Seed)
		if err != nil {
			return nil, err
		}
		if f, err = gguf.Parse(b); err != nil {
			return nil, err
		}
		name = fmt.Sprintf("tpsbench-%s-%s", p.Name, strings.ToLower(typ.String()))
	} else {
		if opts.Format != "" {
			return nil, errors.New("a weight format applies to built-in shapes; a GGUF file has its own")
		}
		if f, err = gguf.Open(opts.Model); err != nil {
			if os.IsNotExist(errors.Unwrap(err)) || errors.Is(err, os.ErrNotExist) {
				return nil, fmt.Errorf("model %q is neither a file nor a built-in shape (%s)", opts.Model, strings.Join(synth.ShapeNames(), ", "))
			}
			return nil, err
		}
		name = strings.TrimSuffix(filepath.Base(opts.Model), filepath.Ext(opts.Model))
	}
	e, err := FromFile(f, name, opts)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("loading %s: %w", opts.Model, err)
	}
	return e, nil
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// FromFile builds the engine over a parsed GGUF file (kept open while the
// engine runs; Close closes it). Every value it reads is checked: a
// damaged or hostile file is an error, never a panic.
func FromFile(f *gguf.File, name string, opts Options) (*Engine, error) {
	m, err := llama.Load(f, opts.Threads)
	if err != nil {
		return nil, err
	}
	if err := m.SetKVType(opts.KVCache); err != nil {
		m.Close()
		return nil, err
	}
	tok, err := tokenizer.FromGGUF(f)
	if err != nil {
		m.Close()
		return nil, err
	}
	if tok.Len() != m.Vocab {
		m.Close()
		return nil, fmt.Errorf("the tokenizer has %d pieces but the embedding %d rows", tok.Len(), m.Vocab)
	}
	s := sched.New(m, opts.Sched)
	srv := server.New(name, m, tok, s)
	srv.Reasoning = opts.Reasoning
	srv.ThinkTags = opts.ThinkTags
	srv.Pooling = opts.Pooling
	if srv.Pooling == "" {
		srv.Pooling = filePooling(f)
	}
	if source, err := f.String("tokenizer.chat_template"); err == nil {
		if srv.Chat, err = chat.Detect(source); err != nil {
			srv.Chat, srv.ChatNote = chat.Plain, err.Error()+": chat prompts are plain \"role: content\" lines"
		}
	}
	return &Engine{Name: name, File: f, Model: m, Tokenizer: tok, Sched: s, Handler: srv}, nil
}

// filePooling is the pooling a GGUF file names (llama.cpp's
// <arch>.pooling_type: 1 mean, 2 cls, 3 last), or "" when it names none.
func filePooling(f *gguf.File) string {
	arch, err := f.String("general.architecture")
	if err != nil {
		return ""
	}
	n, err := f.Uint(arch + ".pooling_type")
	if err != nil {
		return ""
	}
	return map[uint64]string{1: sched.PoolMean, 2: sched.PoolCLS, 3: sched.PoolLast}[n]
}

// Close stops the scheduler and releases the model.
func (e *Engine) Close() {
	e.Sched.Close()
	e.Model.Close()
	_ = e.File.Close()
}

// Serve listens on addr (host:port; port 0 picks one) and serves until ctx
// ends. ready, when set, receives the base URL once listening.
func (e *Engine) Serve(ctx context.Context, addr string, ready func(url string)) error {
	ln, err := httpserve.Listen(addr)
	if err != nil {
		return err
	}
	srv := httpserve.Server(e.Handler)
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	if ready != nil {
		ready("http://" + ln.Addr().String())
	}
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
		return nil
	}
}
