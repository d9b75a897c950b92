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

// Options say what to serve and how. Validate holds them to the rules
// Load would find broken later, with the same words.
type Options struct {
	Model   string // a GGUF path, or a built-in shape (ShapeNames)
	Format  string // weight format of a built-in shape: f32, f16, q8_0, q4_0
	Threads int    // 0: all cores
	Seed    uint64 // dummy-weight seed of a built-in shape
	// KVCache is what the KV cache holds: "f32" ("" too) or "f16", half
	// the memory, as llama.cpp's default cache (llama.Model.SetKVType)
	KVCache string
	Sched   sched.Options
	// Reasoning makes the first Reasoning tokens of every chat answer
	// reasoning (server.Server.Reasoning), as a reasoning model's are.
	Reasoning int
	// ReasoningParser splits chat answers at their </think> tag into
	// reasoning and content (server.Server.ThinkTags), as vLLM's parsers
	// of its names do: deepseek_r1 or qwen3; "" for none.
	ReasoningParser string
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
	// Synthetic says the weights are dummy ones (a built-in shape, or a
	// file `model synth` wrote): the speed is a real model's of that
	// shape, the text is noise.
	Synthetic bool
}

// Load opens the model and starts its scheduler. Its threads keep every
// Go scheduler slot busy while it steps, so a client in the same process
// reads the served tokens late and in bursts: to measure token timing,
// serve it from another process (tpsbench run starts `tpsbench serve`).
func Load(opts Options) (*Engine, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	f, name, err := openModel(opts.Model, opts.Format, opts.Seed)
	if err != nil {
		return nil, err
	}
	e, err := FromFile(f, name, opts)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("loading %s: %w", opts.Model, err)
	}
	return e, nil
}

// openModel opens a model as Options name it: a built-in shape made in
// format (f32 by default) with seed's weights, unless a file of its name
// is there, else a GGUF file. name is what the server calls it.
func openModel(model, format string, seed uint64) (f *gguf.File, name string, err error) {
	if model == "" {
		model = DefaultModel
	}
	if p, err := synth.Lookup(model); err == nil && !strings.Contains(model, "/") && !fileExists(model) {
		typ, err := formatOf(format)
		if err != nil {
			return nil, "", err
		}
		b, err := synth.Bytes(p, typ, seed)
		if err != nil {
			return nil, "", err
		}
		if f, err = gguf.Parse(b); err != nil {
			return nil, "", err
		}
		return f, fmt.Sprintf("tpsbench-%s-%s", p.Name, strings.ToLower(typ.String())), nil
	}
	if format != "" {
		return nil, "", errors.New("a weight format applies to built-in shapes; a GGUF file has its own")
	}
	if f, err = gguf.Open(model); err != nil {
		if os.IsNotExist(errors.Unwrap(err)) || errors.Is(err, os.ErrNotExist) {
			return nil, "", notAModel(model)
		}
		return nil, "", err
	}
	return f, strings.TrimSuffix(filepath.Base(model), filepath.Ext(model)), nil
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
	kv, err := kvTypeOf(opts.KVCache)
	if err != nil {
		m.Close()
		return nil, err
	}
	if err := m.SetKVType(kv); err != nil {
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
	srv.Synthetic = synth.Made(f)
	srv.Reasoning = opts.Reasoning
	srv.ThinkTags = opts.ReasoningParser != ""
	srv.Pooling = opts.Pooling
	if srv.Pooling == "" {
		srv.Pooling = filePooling(f)
	}
	if source, err := f.String("tokenizer.chat_template"); err == nil {
		if srv.Chat, err = chat.Detect(source); err != nil {
			srv.Chat, srv.ChatNote = chat.Plain, err.Error()+": chat prompts are plain \"role: content\" lines"
		}
	}
	return &Engine{Name: name, File: f, Model: m, Tokenizer: tok, Sched: s, Handler: srv, Synthetic: srv.Synthetic}, nil
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
