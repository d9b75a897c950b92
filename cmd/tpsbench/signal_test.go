package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/tpsbench/tpsbench/internal/scripted"
)

var (
	binOnce sync.Once
	binPath string
	binErr  error
)

// binary builds the tpsbench command once for tests that need a process.
func binary(t *testing.T) string {
	t.Helper()
	binOnce.Do(func() {
		dir, err := os.MkdirTemp("", "tpsbench-bin")
		if err != nil {
			binErr = err
			return
		}
		binPath = filepath.Join(dir, "tpsbench")
		out, err := exec.Command("go", "build", "-o", binPath, ".").CombinedOutput()
		if err != nil {
			binErr = err
			t.Log(string(out))
		}
	})
	if binErr != nil {
		t.Fatalf("building tpsbench: %v", binErr)
	}
	return binPath
}

// startRun runs tpsbench against a slow scripted server, writing records,
// and waits until at least n records are on disk.
func startRun(t *testing.T, records string, n int) (*exec.Cmd, *bytes.Buffer) {
	t.Helper()
	srv := scripted.New(scripted.Script{TTFT: 5 * time.Millisecond, Gap: 10 * time.Millisecond, Usage: true})
	t.Cleanup(srv.Close)
	cmd := exec.Command(binary(t), "run", "--url", srv.URL, "--model", "m", "--concurrency", "4", "--requests", "100000",
		"--max-tokens", "5", "--records", records, "--grace", "200ms", "-q")
	var out bytes.Buffer
	cmd.Stdout = &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		data, _ := os.ReadFile(records)
		if bytes.Count(data, []byte("\n")) >= n {
			return cmd, &out
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("no %d records after 20 s", n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestSIGKILLKeepsRecords(t *testing.T) {
	records := filepath.Join(t.TempDir(), "r.jsonl")
	cmd, _ := startRun(t, records, 20)
	before, _ := os.ReadFile(records)
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	code, out, errs := cli(t, "report", records, "--format", "json")
	if code != 0 {
		t.Fatalf("report after SIGKILL: exit %d %s", code, errs)
	}
	complete := bytes.Count(before, []byte("\n"))
	if !strings.Contains(out, `"completed"`) || complete < 20 {
		t.Fatalf("report %s", out)
	}
	// Records are flushed as each request ends: what was on disk before
	// the kill is all still there.
	after, _ := os.ReadFile(records)
	if !bytes.HasPrefix(after, before[:bytes.LastIndexByte(before, '\n')+1]) {
		t.Error("records written before the kill changed")
	}
}

func TestSignalsStopWithReport(t *testing.T) {
	for _, c := range []struct {
		sig  syscall.Signal
		code int
	}{{syscall.SIGINT, exitInterrupted}, {syscall.SIGTERM, exitTerminated}} {
		t.Run(c.sig.String(), func(t *testing.T) {
			records := filepath.Join(t.TempDir(), "r.jsonl")
			cmd, out := startRun(t, records, 10)
			cmd.Process.Signal(c.sig)
			err := cmd.Wait()
			ee, ok := err.(*exec.ExitError)
			if !ok || ee.ExitCode() != c.code {
				t.Fatalf("exit %v, want %d", err, c.code)
			}
			if !strings.Contains(out.String(), "interrupted") || !strings.Contains(out.String(), "Total requests:") {
				t.Errorf("no report of what finished:\n%s", out.String())
			}
			if code, _, errs := cli(t, "report", records); code != 0 || errs != "" {
				t.Errorf("records after %s: exit %d %s", c.sig, code, errs)
			}
		})
	}
}

// TestSecondInterruptEndsAtOnce: with --grace 1h, the first Ctrl-C waited
// out the grace; a second one now cancels the requests in flight, and the
// run ends with them recorded as canceled.
func TestSecondInterruptEndsAtOnce(t *testing.T) {
	srv := scripted.New(scripted.Script{TTFT: time.Millisecond, Gap: time.Second, Usage: true})
	t.Cleanup(srv.Close)
	records := filepath.Join(t.TempDir(), "r.jsonl")
	cmd := exec.Command(binary(t), "run", "--url", srv.URL, "--model", "m", "--concurrency", "3", "--requests", "3",
		"--max-tokens", "1000", "--records", records, "--grace", "1h", "-q")
	var out bytes.Buffer
	cmd.Stdout = &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(20 * time.Second); srv.Requests() < 3; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatal("the server never saw 3 requests")
		}
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	// Ctrl-C pressed again and again: two signals sent at once may reach
	// the process as one, so it is pressed until the run ends
	var err error
	for deadline, ended := time.Now().Add(time.Minute), false; !ended; {
		cmd.Process.Signal(syscall.SIGINT)
		select {
		case err = <-exited:
			ended = true
		case <-time.After(200 * time.Millisecond):
		}
		if !ended && time.Now().After(deadline) { // far below the 1 h grace it would wait
			cmd.Process.Kill()
			t.Fatal("still running a minute after the second Ctrl-C")
		}
	}
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != exitInterrupted {
		t.Fatalf("exit %v, want %d", err, exitInterrupted)
	}
	data, _ := os.ReadFile(records)
	if n := bytes.Count(data, []byte(`"kind":"canceled"`)); n != 3 {
		t.Errorf("%d canceled records, want 3:\n%s", n, data)
	}
	if n := bytes.Count(data, []byte(`interrupted by the user a second time`)); n != 3 {
		t.Errorf("%d records say the user ended them, want 3 (not the read's \"i/o timeout\"):\n%s", n, data)
	}
	if !strings.Contains(out.String(), "Total requests: 3") {
		t.Errorf("no report of the canceled requests:\n%s", out.String())
	}
}
