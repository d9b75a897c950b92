package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tpsbench/tpsbench/internal/scripted"
)

// TestLiveLineInTerminal drives the binary in a tmux pane (a real
// pseudo-terminal) and reads the screen: one status line, redrawn in
// place, while the run goes on.
func TestLiveLineInTerminal(t *testing.T) {
	tmux, err := exec.LookPath("tmux")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("tmux is not installed (the test command installs it)")
		}
		t.Skip("tmux is not installed")
	}
	srv := scripted.New(scripted.Script{TTFT: 5 * time.Millisecond, Gap: 20 * time.Millisecond, Usage: true})
	defer srv.Close()
	bin := binary(t)
	session := "tpsbench-test-" + filepath.Base(t.TempDir())
	sock := filepath.Join(t.TempDir(), "tmux.sock")
	cmdline := bin + " run --url " + srv.URL + " --model m --concurrency 2 --duration 3s --max-tokens 10 > /dev/null"
	if out, err := exec.Command(tmux, "-S", sock, "new-session", "-d", "-s", session, "-x", "200", "-y", "20", cmdline).CombinedOutput(); err != nil {
		t.Fatalf("tmux: %v %s", err, out)
	}
	defer exec.Command(tmux, "-S", sock, "kill-server").Run()
	var screen string
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		out, err := exec.Command(tmux, "-S", sock, "capture-pane", "-p", "-t", session).Output()
		if err != nil {
			break // the run ended and took the session with it
		}
		screen = string(out)
		if strings.Contains(screen, "s left") && strings.Contains(screen, "in flight") {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	lines := 0
	for _, l := range strings.Split(screen, "\n") {
		if strings.Contains(l, "in flight") {
			lines++
		}
	}
	if lines != 1 {
		t.Fatalf("want one live status line redrawn in place, screen:\n%s", screen)
	}
	if !strings.Contains(screen, "tokens/s overall") || !strings.Contains(screen, "over the last 10 s") {
		t.Errorf("status line lacks its figures:\n%s", screen)
	}
}

// TestWatchDashboard follows a records file that a run is writing, in a
// tmux pane, and reads the full-screen view.
func TestWatchDashboard(t *testing.T) {
	tmux, err := exec.LookPath("tmux")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("tmux is not installed (the test command installs it)")
		}
		t.Skip("tmux is not installed")
	}
	srv := scripted.New(scripted.Script{TTFT: 5 * time.Millisecond, Gap: 10 * time.Millisecond, Usage: true})
	defer srv.Close()
	bin := binary(t)
	dir := t.TempDir()
	recs := filepath.Join(dir, "r.jsonl")
	os.WriteFile(recs, nil, 0o644)
	sock := filepath.Join(dir, "tmux.sock")
	if out, err := exec.Command(tmux, "-S", sock, "new-session", "-d", "-s", "w", "-x", "160", "-y", "30", bin+" watch --every 200ms "+recs).CombinedOutput(); err != nil {
		t.Fatalf("tmux: %v %s", err, out)
	}
	defer exec.Command(tmux, "-S", sock, "kill-server").Run()
	run := exec.Command(bin, "run", "--url", srv.URL, "--model", "m", "--concurrency", "4", "--duration", "2500ms", "--max-tokens", "10", "--records", recs, "-q")
	if err := run.Run(); err != nil {
		t.Fatalf("run: %v", err)
	}
	var screen string
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		out, _ := exec.Command(tmux, "-S", sock, "capture-pane", "-p", "-t", "w").Output()
		screen = string(out)
		if strings.Contains(screen, "TPS, last") && strings.Contains(screen, "completed") {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	for _, want := range []string{"requests:", "completed, 0 failed", "system TPS", "TPS, last", "TTFT ms", "TPOT ms"} {
		if !strings.Contains(screen, want) {
			t.Fatalf("dashboard lacks %q:\n%s", want, screen)
		}
	}
}
