// Command scripted-server runs the scripted OpenAI-compatible test server on
// a port: tokens on an exact schedule, or flooded as fast as it can write.
// It backs the client benchmarks and lets anyone try tpsbench without an
// inference server. GET /debug/sent lists its own send times.
package main

import (
	"flag"
	"fmt"
	"net/http"
	"os"
	"time"

	"github.com/tpsbench/tpsbench/internal/scripted"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8001", "listen address")
	ttft := flag.Duration("ttft", 50*time.Millisecond, "time to first token (0 with -gap 0 floods)")
	gap := flag.Duration("gap", 20*time.Millisecond, "gap between token events")
	tokens := flag.Int("tokens", 0, "tokens per response (0: the request's max_tokens)")
	per := flag.Int("per-event", 1, "tokens per event")
	role := flag.Bool("role", true, "send a role-only first chunk")
	usage := flag.Bool("usage", true, "send a usage chunk")
	keepLog := flag.Bool("log", false, "keep send times for GET /debug/sent")
	reasoning := flag.Int("reasoning", 0, "stream the first N tokens of a chat answer as reasoning_content")
	flag.Parse()
	sc := scripted.Script{TTFT: *ttft, Gap: *gap, Tokens: *tokens, PerEvent: *per, RoleChunk: *role, Usage: *usage, Word: " word", PromptTokens: 8, Reasoning: *reasoning}
	h := scripted.NewHandler(func(int) scripted.Script { return sc }, *keepLog)
	srv := &http.Server{Addr: *addr, Handler: h, ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(os.Stderr, "scripted-server listening on http://%s\n", *addr)
	if err := srv.ListenAndServe(); err != nil {
		fmt.Fprintln(os.Stderr, "scripted-server:", err)
		os.Exit(1)
	}
}
