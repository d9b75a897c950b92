package sched_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/tpsbench/tpsbench/engine/gguf"
	"github.com/tpsbench/tpsbench/engine/llama"
	"github.com/tpsbench/tpsbench/engine/sched"
	"github.com/tpsbench/tpsbench/engine/synth"
)

func model(t *testing.T) *llama.Model { return modelWithContext(t, 0) }

// modelWithContext is the tiny model with a context of n tokens (0: its
// own).
func modelWithContext(t *testing.T, n int) *llama.Model { return synthModel(t, "tiny", gguf.Q8_0, n) }

// synthModel is a built-in shape's dummy model in typ, with a context of
// n tokens (0: its own), on two threads.
func synthModel(tb testing.TB, shape string, typ gguf.TensorType, n int) *llama.Model {
	tb.Helper()
	return synthModelOn(tb, shape, typ, n, 2)
}

// synthModelOn is synthModel on the threads given.
func synthModelOn(tb testing.TB, shape string, typ gguf.TensorType, n, threads int) *llama.Model {
	tb.Helper()
	p, _ := synth.Lookup(shape)
	if n > 0 {
		p.Context = n
	}
	b, err := synth.Bytes(p, typ, 1)
	if err != nil {
		tb.Fatal(err)
	}
	f, err := gguf.Parse(b)
	if err != nil {
		tb.Fatal(err)
	}
	m, err := llama.Load(f, threads)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(m.Close)
	return m
}

func generate(t *testing.T, s *sched.Scheduler, prompt []int, n int) []int {
	out, _ := generateCached(t, s, prompt, n)
	return out
}

// generateCached is generate, with how many of the prompt's tokens the
// prefix cache held.
func generateCached(t *testing.T, s *sched.Scheduler, prompt []int, n int) (out []int, cached int) {
	t.Helper()
	ev, err := s.Submit(context.Background(), sched.Request{Prompt: prompt, MaxTokens: n, IgnoreEOS: true, EOG: []int{2}})
	if err != nil {
		t.Fatal(err)
	}
	for e := range ev {
		if e.Done {
			if e.Reason != "length" || e.Err != nil {
				t.Fatalf("ended with %q %v", e.Reason, e.Err)
			}
			cached = e.Cached
			break
		}
		out = append(out, e.Token)
	}
	return out, cached
}

// Greedy decoding of Q8_0 weights is exact whatever the batch, so a
// request's tokens must not depend on what runs beside it or on how its
// prompt was chunked.
func TestBatchingAndChunkingKeepResults(t *testing.T) {
	m := model(t)
	prompt := []int{1}
	for i := 0; i < 40; i++ {
		prompt = append(prompt, 300+i)
	}
	solo := sched.New(m, sched.Options{MaxSeqs: 1})
	want := generate(t, solo, prompt, 12)
	solo.Close()
	for _, opts := range []sched.Options{{MaxSeqs: 8}, {MaxSeqs: 8, ChunkedPrefill: true, MaxPrefillTokens: 7}} {
		t.Run(fmt.Sprintf("%+v", opts), func(t *testing.T) {
			s := sched.New(m, opts)
			defer s.Close()
			results := make(chan []int, 6)
			for i := 0; i < 6; i++ {
				go func() {
					ev, _ := s.Submit(context.Background(), sched.Request{Prompt: prompt, MaxTokens: 12, IgnoreEOS: true, EOG: []int{2}})
					var out []int
					for e := range ev {
						if !e.Done {
							out = append(out, e.Token)
						}
					}
					results <- out
				}()
			}
			for i := 0; i < 6; i++ {
				if got := <-results; fmt.Sprint(got) != fmt.Sprint(want) {
					t.Errorf("batched result %v, alone %v", got, want)
				}
			}
		})
	}
}

// TestRequestsRunTogether: with room for four, four of six requests run
// and two wait. Each asks for a context's worth of tokens (16,000 steps,
// where the test needs one look at the stats while they last): with 200,
// the tiny model finished the first four between two looks of a test
// goroutine slowed by the engine's busy threads.
func TestRequestsRunTogether(t *testing.T) {
	const longest = 1 << 14
	m := modelWithContext(t, longest)
	s := sched.New(m, sched.Options{MaxSeqs: 4})
	defer s.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for i := 0; i < 6; i++ {
		if _, err := s.Submit(ctx, sched.Request{Prompt: []int{1, 5}, MaxTokens: longest - 2, IgnoreEOS: true}); err != nil {
			t.Fatal(err)
		}
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		st := s.Stats()
		if st.Running == 4 && st.Waiting == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("stats %+v, want 4 running and 2 waiting", st)
		}
		time.Sleep(5 * time.Millisecond)
	}
	cancel()
	for s.Stats().Running != 0 || s.Stats().Waiting != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("cancelled requests still held: %+v", s.Stats())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestQueueBound(t *testing.T) {
	m := model(t)
	s := sched.New(m, sched.Options{MaxSeqs: 1, MaxWaiting: 2})
	defer s.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var full error
	for i := 0; i < 10 && full == nil; i++ {
		_, full = s.Submit(ctx, sched.Request{Prompt: []int{1}, MaxTokens: 200, IgnoreEOS: true})
	}
	if full != sched.ErrQueueFull {
		t.Fatalf("after 10 submissions: %v, want ErrQueueFull", full)
	}
	if _, err := s.Submit(ctx, sched.Request{Prompt: make([]int, m.Context), MaxTokens: 1}); err == nil {
		t.Error("a prompt as long as the context was accepted")
	}
}

// TestPrefixCacheHitsKeepResults, with an F32 KV cache and an F16 one
// (whose blocks the prefix cache keeps as the cache holds them).
func TestPrefixCacheHitsKeepResults(t *testing.T) {
	for _, kv := range []gguf.TensorType{gguf.F32, gguf.F16} {
		t.Run(kv.String(), func(t *testing.T) { testPrefixCacheHits(t, kv) })
	}
}

func testPrefixCacheHits(t *testing.T, kv gguf.TensorType) {
	m := model(t)
	if err := m.SetKVType(kv); err != nil {
		t.Fatal(err)
	}
	prompt := []int{1}
	for i := 0; i < 70; i++ {
		prompt = append(prompt, 300+i)
	}
	plain := sched.New(m, sched.Options{MaxSeqs: 2})
	want := generate(t, plain, prompt, 10)
	plain.Close()
	s := sched.New(m, sched.Options{MaxSeqs: 2, PrefixCaching: true, PrefixCacheBytes: 1 << 20})
	defer s.Close()
	cold, coldCached := generateCached(t, s, prompt, 10)
	st := s.Stats()
	if st.PrefixHits != 0 || st.PrefixQueries != uint64(len(prompt)) || st.PrefixBytes == 0 {
		t.Fatalf("after a cold request: %+v", st)
	}
	warm, warmCached := generateCached(t, s, prompt, 10)
	st = s.Stats()
	// 71 tokens: 4 whole blocks of 16 can come from the cache (the last
	// token is always fed).
	if st.PrefixHits != 64 || coldCached != 0 || warmCached != 64 {
		t.Fatalf("hits %d, want 64 (%+v); the requests said %d and %d cached", st.PrefixHits, st, coldCached, warmCached)
	}
	if fmt.Sprint(cold) != fmt.Sprint(want) || fmt.Sprint(warm) != fmt.Sprint(want) {
		t.Fatalf("cold %v warm %v, want %v", cold, warm, want)
	}
	// A prompt sharing only its first block hits 16.
	other := append([]int(nil), prompt...)
	other[20] = 7
	generate(t, s, other, 2)
	if got := s.Stats().PrefixHits; got != 64+16 {
		t.Errorf("hits %d after a prompt sharing one block, want 80", got)
	}
}

func TestPrefixCacheEvictsWithinBudget(t *testing.T) {
	m := model(t)
	blockBytes := 16 * m.KVBytes()
	s := sched.New(m, sched.Options{MaxSeqs: 1, PrefixCaching: true, PrefixCacheBytes: 3 * blockBytes})
	defer s.Close()
	for p := 0; p < 5; p++ {
		prompt := []int{1}
		for i := 0; i < 40; i++ {
			prompt = append(prompt, 260+p*40+i)
		}
		generate(t, s, prompt, 1)
		if st := s.Stats(); st.PrefixBytes > 3*blockBytes {
			t.Fatalf("prefix cache holds %d bytes, budget %d", st.PrefixBytes, 3*blockBytes)
		}
	}
}
