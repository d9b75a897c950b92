// Command genrecords writes a synthetic records file (for the report
// benchmark): N requests of a run at a fixed concurrency, each streaming
// T tokens one a chunk, with a failure every 97th request.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"

	"github.com/tpsbench/tpsbench/record"
)

func main() {
	n := flag.Int("n", 1_000_000, "records")
	tokens := flag.Int("tokens", 32, "tokens a request")
	out := flag.String("o", "records.jsonl", "output file")
	flag.Parse()
	f, err := os.Create(*out)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	w := record.NewWriter(bw)
	const ms = int64(1e6)
	for i := 0; i < *n; i++ {
		sent := int64(i) * 2 * ms
		r := &record.Record{V: 1, Run: "bench", Step: "c=64", Seq: i, Model: "m", URL: "http://127.0.0.1:8000/v1/chat/completions", API: "chat",
			Stream: true, Concurrency: 64, T0: 1_800_000_000_000_000_000, Scheduled: sent, Sent: sent, TokenSource: record.SourceUsage,
			PromptTokens: 100, MaxTokens: *tokens, Status: 200, FinishReason: "length"}
		if i%97 == 0 {
			r.Done = sent + 30*ms
			r.Fail(record.KindHTTPStatus, "HTTP 503 Service Unavailable")
		} else {
			for k := 0; k < *tokens; k++ {
				r.Chunks = append(r.Chunks, record.Chunk{At: int64(80+k*20+i%13) * ms, Tokens: 1})
			}
			r.OutputTokens, r.UsageTokens = *tokens, *tokens
			r.First, r.Last = sent+r.Chunks[0].At, sent+r.Chunks[*tokens-1].At
			r.Done = r.Last
		}
		if err := w.Write(r); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	if err := w.Flush(); err != nil || bw.Flush() != nil || f.Close() != nil {
		fmt.Fprintln(os.Stderr, "writing failed")
		os.Exit(1)
	}
}
