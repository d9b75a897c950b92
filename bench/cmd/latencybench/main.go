// Command latencybench measures how a long prompt arriving mid-run disturbs
// the sequences already decoding: four streams generate, then a request
// with a 2,000-token prompt arrives; it compares the streams' inter-token
// latency before it arrived with their inter-token latency while its
// prompt was processed. Run it under both engine presets to see the
// latency-first preset (chunked prefill) keep the rhythm. One JSON line.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/tpsbench/tpsbench/client"
	"github.com/tpsbench/tpsbench/engine"
	"github.com/tpsbench/tpsbench/record"
)

func main() {
	model := flag.String("model", "110m", "built-in shape or GGUF file")
	dtype := flag.String("dtype", "q8_0", "weight format of a built-in shape")
	preset := flag.String("preset", "latency", "engine preset: latency or throughput")
	streams := flag.Int("streams", 4, "sequences decoding when the long prompt arrives")
	promptLen := flag.Int("prompt", 2000, "words in the long prompt (one token each)")
	flag.Parse()

	opts, ok := engine.Presets[*preset]
	if !ok {
		fmt.Fprintln(os.Stderr, "latencybench: -preset latency|throughput")
		os.Exit(2)
	}
	e, err := engine.Load(engine.Options{Model: *model, Format: *dtype, Sched: opts, Seed: 1})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer e.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	urlc := make(chan string, 1)
	go func() { _ = e.Serve(ctx, "127.0.0.1:0", func(u string) { urlc <- u }) }()
	url := <-urlc

	clock := record.NewClock()
	mk := func(n int) *client.HTTP {
		c, err := client.NewHTTP(client.HTTPConfig{URL: url, API: client.APICompletions, Stream: true, IgnoreEOS: true, Concurrency: n, Clock: clock})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		return c
	}
	cl := mk(*streams + 1)
	recs := make([]*record.Record, *streams)
	var wg sync.WaitGroup
	for i := range recs {
		recs[i] = &record.Record{}
		wg.Go(func() {
			cl.Do(ctx, &client.Request{Model: e.Name, Prompt: "Once upon a time", MaxTokens: 400}, recs[i])
		})
	}
	time.Sleep(2 * time.Second) // the streams are decoding
	long := &record.Record{}
	cl.Do(ctx, &client.Request{Model: e.Name, Prompt: strings.Repeat(" the", *promptLen), MaxTokens: 8}, long)
	wg.Wait()
	if long.Error != nil {
		fmt.Fprintln(os.Stderr, "long request:", long.Error.Message)
		os.Exit(1)
	}
	// The streams' inter-token gaps in the second before the long request
	// was sent, and those overlapping the processing of its prompt (from
	// sent to its first token): a stall shows as one long gap there.
	var before, during []float64
	for _, r := range recs {
		for i := 1; i < len(r.Chunks); i++ {
			start, end := r.Sent+r.Chunks[i-1].At, r.Sent+r.Chunks[i].At
			gap := float64(end-start) / 1e6
			switch {
			case end < long.Sent && end > long.Sent-int64(time.Second):
				before = append(before, gap)
			case end > long.Sent && start < long.First:
				during = append(during, gap)
			}
		}
	}
	p := func(v []float64, q float64) float64 {
		if len(v) == 0 {
			return 0
		}
		sort.Float64s(v)
		return v[int(q*float64(len(v)-1))]
	}
	_ = json.NewEncoder(os.Stdout).Encode(map[string]any{
		"preset": *preset, "model": e.Name, "prompt_tokens": long.PromptTokens,
		"itl_before_p50_ms": p(before, 0.5), "itl_before_p99_ms": p(before, 0.99),
		"itl_during_p50_ms": p(during, 0.5), "itl_during_p99_ms": p(during, 0.99),
		"p99_ratio": p(during, 0.99) / p(before, 0.99), "long_ttft_ms": float64(long.First-long.Sent) / 1e6,
	})
}
