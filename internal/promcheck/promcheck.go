// Package promcheck holds an exposition to Prometheus's own linter,
// promtool check metrics, for tests of every /metrics tpsbench serves.
package promcheck

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// Lint fails t with every problem promtool finds in body, a scrape in
// the text format, except those on names kept says are spelled as
// another server spells them (vLLM's vllm: names use a colon, which
// Prometheus reserves for recording rules). Without promtool the test is
// skipped, but not in CI, whose test command installs it.
func Lint(t testing.TB, body []byte, kept func(name string) bool) {
	t.Helper()
	promtool, err := exec.LookPath("promtool")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("promtool is not installed (the test command installs Debian's prometheus, which has it)")
		}
		t.Skip("promtool is not installed")
	}
	cmd := exec.Command(promtool, "check", "metrics")
	cmd.Stdin = bytes.NewReader(body)
	out, _ := cmd.CombinedOutput() // its exit status only repeats what it printed
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if line == "" {
			continue
		}
		name, _, _ := strings.Cut(line, " ")
		name = strings.TrimSuffix(name, ":")
		if kept != nil && kept(name) {
			continue
		}
		t.Errorf("promtool check metrics: %s", line)
	}
}
