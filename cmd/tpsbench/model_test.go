package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestModelSynthAndInfo(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.gguf"), filepath.Join(dir, "b.gguf")
	// --preset is --shape's old name, still taken
	for i, flag := range []string{"--shape", "--preset"} {
		if code, _, errs := cli(t, "model", "synth", flag, "tiny", "--dtype", "q4_0", "-o", []string{a, b}[i]); code != 0 {
			t.Fatal(errs)
		}
	}
	da, _ := os.ReadFile(a)
	db, _ := os.ReadFile(b)
	if !bytes.Equal(da, db) {
		t.Error("same shape and seed wrote different bytes")
	}
	code, out, errs := cli(t, "model", "info", a)
	if code != 0 || !strings.Contains(out, "Q4_0") || !strings.Contains(out, "Bytes read per generated token") || !strings.Contains(out, "Layers        2") ||
		// keys and values of 2 layers of 2 heads of 16: 128 values
		!strings.Contains(out, "KV cache: 512 bytes a position in F32 (the engine's default), 256 in F16") {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	code, out, _ = cli(t, "run", "--engine-model", a, "--max-tokens", "3", "-q")
	if code != 0 || !strings.Contains(out, "Model: a") {
		t.Fatalf("run on a GGUF file: exit %d\n%s", code, out)
	}
	bad := filepath.Join(dir, "bad.gguf")
	os.WriteFile(bad, []byte("GGUF\x03\x00\x00\x00garbage-garbage-garbage-garbage"), 0o644)
	if code, _, errs := cli(t, "model", "info", bad); code != exitError || !strings.Contains(errs, "offset") {
		t.Fatalf("bad file: exit %d %s", code, errs)
	}
}
