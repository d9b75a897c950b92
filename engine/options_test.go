package engine_test

import (
	"bytes"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/tpsbench/tpsbench/engine"
)

// TestOptionsValidate: each option out of range is refused before
// anything loads, with what it is; a built-in shape, a file and the zero
// options are taken.
func TestOptionsValidate(t *testing.T) {
	file := filepath.Join(t.TempDir(), "m.gguf")
	if err := os.WriteFile(file, []byte("not checked until loaded"), 0o644); err != nil {
		t.Fatal(err)
	}
	seqs, prefill := engine.Options{}, engine.Options{}
	seqs.Sched.MaxSeqs, prefill.Sched.MaxPrefillTokens = -1, -1
	for _, c := range []struct {
		o    engine.Options
		says string
	}{
		{engine.Options{Threads: -1}, "threads"},
		{engine.Options{Model: "no-such-shape"}, "neither a file nor a built-in shape"},
		{engine.Options{Model: t.TempDir()}, "neither a file nor a built-in shape"},
		{engine.Options{Model: "tiny", Format: "q5_1"}, "weight format"},
		{engine.Options{Model: file, Format: "f16"}, "a GGUF file has its own"},
		{engine.Options{KVCache: "q8_0"}, "kv-cache-dtype"},
		{engine.Options{Pooling: "max"}, "pooling"},
		{engine.Options{ReasoningParser: "o1"}, "reasoning parser"},
		{engine.Options{Reasoning: -1}, "reasoning tokens"},
		{seqs, "max-num-seqs"},
		{prefill, "max-prefill-tokens"},
	} {
		if err := c.o.Validate(); err == nil || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%+v: %v, want an error saying %q", c.o, err, c.says)
		}
	}
	for _, o := range []engine.Options{{}, {Model: "tiny", Format: "q4_0", KVCache: "f16"}, {Model: file}, {ReasoningParser: "qwen3", Pooling: "cls"}} {
		if err := o.Validate(); err != nil {
			t.Errorf("%+v refused: %v", o, err)
		}
	}
	if _, err := engine.Load(engine.Options{Model: "tiny", KVCache: "bf16"}); err == nil || !strings.Contains(err.Error(), "kv-cache-dtype") {
		t.Errorf("Load took options Validate refuses: %v", err)
	}
	if _, err := engine.Preset("fastest"); err == nil {
		t.Error("an unknown preset taken")
	}
}

// TestDescribeWrittenShape: a shape written to a file and described from
// the file is the shape described by name: the same parameters, bytes
// and configuration; the file's formats are the format it was written in.
func TestDescribeWrittenShape(t *testing.T) {
	var b bytes.Buffer
	if err := engine.WriteShape(&b, "tiny", "q8_0", 3); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "tiny.gguf")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	fromFile, err := engine.Describe(path, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	byName, err := engine.Describe("tiny", "q8_0", 3)
	if err != nil {
		t.Fatal(err)
	}
	if fromFile.Params != byName.Params || fromFile.BytesPerToken != byName.BytesPerToken || !reflect.DeepEqual(fromFile.Config, byName.Config) || fromFile.Params == 0 {
		t.Errorf("from the file %+v, by name %+v", fromFile, byName)
	}
	if byName.Name != "tpsbench-tiny-q8_0" || fromFile.Name != "tiny" || !strings.Contains(strings.Join(fromFile.Formats, " "), "Q8_0") {
		t.Errorf("names %q and %q, formats %v", byName.Name, fromFile.Name, fromFile.Formats)
	}
	if want := 4 * 2 * byName.Config.Layers * byName.Config.KVDim(); byName.KVBytesPerPosition != want {
		t.Errorf("KV bytes a position %d, want %d", byName.KVBytesPerPosition, want)
	}
	if err := engine.WriteShape(&b, "tiny", "q5_1", 3); err == nil {
		t.Error("a shape written in a format the engine does not make")
	}
}

// TestSyntheticSaid: an engine of dummy weights (a built-in shape, or a
// file written from one) says so when it announces itself and in
// /v1/models, so that nobody takes its noise for a bug; a thread is one.
func TestSyntheticSaid(t *testing.T) {
	var b bytes.Buffer
	if err := engine.WriteShape(&b, "tiny", "f32", 1); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "written.gguf")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, model := range []string{"tiny", path} {
		e, err := engine.Load(engine.Options{Model: model, Threads: 1})
		if err != nil {
			t.Fatal(err)
		}
		var said strings.Builder
		engine.Announce(&said, e, "http://x")
		rec := httptest.NewRecorder()
		e.Handler.ServeHTTP(rec, httptest.NewRequest("GET", "/v1/models", nil))
		e.Close()
		if !e.Synthetic || !strings.Contains(said.String(), "synthetic weights") || !strings.Contains(said.String(), "1 thread,") ||
			!strings.Contains(rec.Body.String(), `"weights":"synthetic`) {
			t.Errorf("%s: synthetic %v, announced %q, models %s", model, e.Synthetic, said.String(), rec.Body)
		}
	}
}
