package main

import (
	"net/http"
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestMain lets this test binary be the engine process a run starts: the
// run re-executes its own program as `tpsbench serve`, and here that
// program is the test binary.
func TestMain(m *testing.M) {
	if os.Getenv(engineChildEnv) == "1" {
		os.Exit(execute(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// TestEngineProcessEndsWithTheRun: the engine a run starts in a process
// of its own stops listening once the run returns.
func TestEngineProcessEndsWithTheRun(t *testing.T) {
	code, _, errs := cli(t, "run", "--engine-model", "tiny", "--requests", "1", "--max-tokens", "2")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	m := regexp.MustCompile(`engine: \S+ .* at (http://127\.0\.0\.1:\d+), in a process of its own`).FindStringSubmatch(errs)
	if m == nil {
		t.Fatalf("no engine line on stderr:\n%s", errs)
	}
	if resp, err := http.Get(m[1] + "/health"); err == nil {
		resp.Body.Close()
		t.Fatalf("the engine at %s still answers after the run", m[1])
	}
}

// TestServeArgs: the engine process gets the run's engine settings, and a
// preset's scheduler settings stay the preset's unless given.
func TestServeArgs(t *testing.T) {
	cases := []struct {
		args      []string
		want, not []string
	}{
		{nil, []string{"--model 15m", "--max-num-seqs 16", "--enable-chunked-prefill=false", "--max-prefill-tokens 256"}, []string{"--preset", "--dtype"}},
		{[]string{"--engine-dtype", "q8_0", "--engine-threads", "1"}, []string{"--dtype q8_0", "--threads 1"}, nil},
		{[]string{"--engine-preset", "latency"}, []string{"--preset latency"}, []string{"--max-num-seqs", "--enable-chunked-prefill", "--max-prefill-tokens"}},
		{[]string{"--engine-preset", "latency", "--engine-max-num-seqs", "8"}, []string{"--preset latency", "--max-num-seqs 8"}, []string{"--max-prefill-tokens"}},
		{[]string{"--engine-enable-prefix-caching", "--engine-kv-cache-mb", "64"}, []string{"--enable-prefix-caching=true", "--kv-cache-mb 64"}, []string{"--reasoning"}},
		{[]string{"--engine-reasoning", "12"}, []string{"--reasoning 12"}, []string{"--reasoning-parser"}},
		{[]string{"--engine-reasoning-parser", "qwen3"}, []string{"--reasoning-parser qwen3"}, nil},
		{nil, []string{"--kv-cache-dtype f32"}, nil},
		{[]string{"--engine-kv-cache-dtype", "f16"}, []string{"--kv-cache-dtype f16"}, nil},
	}
	for _, c := range cases {
		f, _ := runFlagsFrom(t, c.args...)
		got := strings.Join(f.engine.serveArgs(), " ")
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("%v: serve args %q lack %q", c.args, got, w)
			}
		}
		for _, n := range c.not {
			if strings.Contains(got, n) {
				t.Errorf("%v: serve args %q have %q", c.args, got, n)
			}
		}
	}
}
