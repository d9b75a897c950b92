// Command enginebench measures the embedded engine on a GGUF file the way
// reference/llamacpp/llamaref.c (built by scripts/llamacpp) measures llama.cpp: a prompt of P tokens in one
// step, then G generated tokens at batch 1, on T threads. It prints one
// JSON line. With -prompts N it also times N more prompts of P tokens,
// each in a new sequence, once the first has run: prompt_tps_warm, what a
// server that has served a prompt before gets (the first step of a size
// also grows the model's scratch buffers).
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/tpsbench/tpsbench/engine/gguf"
	"github.com/tpsbench/tpsbench/engine/llama"
)

func main() {
	threads := flag.Int("threads", 1, "threads")
	prompt := flag.Int("prompt", 128, "prompt tokens")
	gen := flag.Int("gen", 64, "generated tokens")
	prompts := flag.Int("prompts", 0, "more prompts to time after the first (prompt_tps_warm)")
	embed := flag.Int("embed", 0, "instead: embeddings/s of this many sequences of -prompt tokens in one step, mean-pooled, as llamaref benchembed")
	rounds := flag.Int("rounds", 5, "with -embed: steps timed, after one to warm up")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: enginebench [-threads T] [-prompt P] [-gen G] MODEL.gguf")
		os.Exit(2)
	}
	f, err := gguf.Open(flag.Arg(0))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer f.Close()
	m, err := llama.Load(f, *threads)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer m.Close()
	tok := func(i int) int { return i % m.Vocab }
	if *embed > 0 {
		benchEmbed(m, *threads, *prompt, *embed, *rounds)
		return
	}
	// warm-up, as llamaref does
	warm := m.NewSequence(4)
	for i := 0; i < 4; i++ {
		_, _ = warm.Forward(tok(3 + i))
	}
	s := m.NewSequence(*prompt + *gen)
	// the prompt in one step, logits for its last token only, as llamaref
	// decodes it (and the scheduler, in chunks)
	entries := make([]llama.Entry, *prompt)
	for i := range entries {
		entries[i] = llama.Entry{Seq: s, Token: tok(300 + i%1000), Logits: i == len(entries)-1}
	}
	t0 := time.Now()
	if _, err := m.Step(entries); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	pp := time.Since(t0)
	t0 = time.Now()
	for g := 0; g < *gen; g++ {
		if _, err := s.Forward(tok(400 + g%1000)); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	tg := time.Since(t0)
	out := map[string]any{
		"engine": "tpsbench", "threads": *threads, "batch": 1, "kernels": llama.Kernels(),
		"prompt_tps": float64(*prompt) / pp.Seconds(), "gen_tps": float64(*gen) / tg.Seconds(),
	}
	if *prompts > 0 {
		var warm time.Duration
		for range *prompts {
			seq := m.NewSequence(*prompt)
			for i := range entries {
				entries[i].Seq = seq
			}
			t0 = time.Now()
			if _, err := m.Step(entries); err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
			warm += time.Since(t0)
			seq.Release()
		}
		out["prompt_tps_warm"] = float64(*prompt**prompts) / warm.Seconds()
	}
	_ = json.NewEncoder(os.Stdout).Encode(out)
}

// benchEmbed times batch sequences of n tokens in one step, every token's
// final hidden state asked for and mean-pooled, as the scheduler runs an
// embeddings batch and as llamaref benchembed decodes one; it prints
// embeddings/s as JSON.
func benchEmbed(m *llama.Model, threads, n, batch, rounds int) {
	entries := make([]llama.Entry, n*batch)
	hidden := make([]float32, n*batch*m.Dim)
	pooled := make([]float32, batch*m.Dim)
	var total time.Duration
	for r := 0; r <= rounds; r++ { // round 0 warms up
		seqs := make([]*llama.Sequence, batch)
		for s := range seqs {
			seqs[s] = m.NewSequence(n)
			for i := range n {
				k := s*n + i
				entries[k] = llama.Entry{Seq: seqs[s], Token: (300 + (i+7*s)%1000) % m.Vocab, Hidden: hidden[k*m.Dim : (k+1)*m.Dim]}
			}
		}
		t0 := time.Now()
		if _, err := m.Step(entries); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		clear(pooled)
		for k := range entries {
			row, out := hidden[k*m.Dim:(k+1)*m.Dim], pooled[(k/n)*m.Dim:(k/n+1)*m.Dim]
			for j, v := range row {
				out[j] += v / float32(n)
			}
		}
		if r > 0 {
			total += time.Since(t0)
		}
		for _, s := range seqs {
			s.Release()
		}
	}
	_ = json.NewEncoder(os.Stdout).Encode(map[string]any{"engine": "tpsbench", "threads": threads, "batch": batch, "tokens": n,
		"kernels": llama.Kernels(), "embeddings_per_s": float64(batch*rounds) / total.Seconds()})
}
