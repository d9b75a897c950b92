package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/tpsbench/tpsbench/internal/scripted"
)

// TestChatFromAPipe: `chat` reads a conversation from a pipe, prints each
// reply as it streamed and its figures after it, skips blank lines, and
// ends at the input's end; a failed turn is said and the chat goes on.
func TestChatFromAPipe(t *testing.T) {
	srv := scripted.NewFunc(func(seq int) scripted.Script {
		if seq == 1 {
			return scripted.Script{Status: 503}
		}
		return scripted.Script{TTFT: 10 * time.Millisecond, Gap: 2 * time.Millisecond, Usage: true, Word: " hi"}
	})
	t.Cleanup(srv.Close)
	var out, errb bytes.Buffer
	code := executeIn([]string{"chat", srv.URL, "--model", "m", "--max-tokens", "4"}, strings.NewReader("hello\n\nagain\nand again"), &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	turns := strings.Split(strings.TrimRight(out.String(), "\n"), "\n")
	if len(turns) != 6 || turns[0] != " hi hi hi hi" || turns[2] != "" || turns[4] != " hi hi hi hi" {
		t.Fatalf("output %q", out.String())
	}
	if !strings.HasPrefix(turns[3], "[failed (http_status): ") {
		t.Errorf("the failed turn: %q", turns[3])
	}
	for _, figures := range []string{turns[1], turns[5]} {
		for _, want := range []string{"[4 tokens in ", "tokens/s, TTFT ", "ms, TPOT "} {
			if !strings.Contains(figures, want) {
				t.Errorf("figures %q lack %q", figures, want)
			}
		}
	}
	if code, _, errs := cli(t, "chat", srv.URL, "--max-tokens", "0"); code != 2 || !strings.Contains(errs, "--max-tokens 0") {
		t.Errorf("--max-tokens 0: exit %d, %q", code, errs)
	}
}
