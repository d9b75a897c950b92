//go:build unix

package e2e_test

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tpsbench/tpsbench"
	"github.com/tpsbench/tpsbench/client"
	"github.com/tpsbench/tpsbench/internal/procfd"
	"github.com/tpsbench/tpsbench/internal/scripted"
	"github.com/tpsbench/tpsbench/load"
	"github.com/tpsbench/tpsbench/workload"
)

const openFilesChild = "TPSBENCH_OPEN_FILES_CHILD"

// TestOpenFileLimit: under a limit of open files, a plan whose streams
// fit runs whole, and one whose streams need more connections than the
// process may open is refused before anything is sent, saying what the
// limit is. The limit is lowered in a process of its own (this test,
// run again), so that no other test meets it.
func TestOpenFileLimit(t *testing.T) {
	if os.Getenv(openFilesChild) == "" {
		cmd := exec.Command(os.Args[0], "-test.run=^TestOpenFileLimit$", "-test.v")
		cmd.Env = append(os.Environ(), openFilesChild+"=1")
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "--- PASS: TestOpenFileLimit") {
			t.Fatalf("the process under a lowered limit: %v\n%s", err, out)
		}
		return
	}
	srv := scripted.New(scripted.Script{TTFT: time.Millisecond, Gap: time.Millisecond, Usage: true})
	defer srv.Close()
	run := func(users int) error {
		cl, err := client.NewHTTP(client.HTTPConfig{URL: srv.URL, Stream: true, Concurrency: users, Timeout: 30 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		defer cl.Close()
		// the server is in this process: each connection takes two files
		plan := tpsbench.Plan{ServerInProcess: true, Steps: []tpsbench.Step{{Label: "s", Model: "m", Client: cl,
			Profile: load.Profile{Shape: load.Users{Count: users}, Requests: users}, Workload: workload.Fixed{Prompt: "p", MaxTokens: 2}}}}
		res, err := tpsbench.Run(context.Background(), plan)
		if err == nil && res.Steps[0].Requests.Completed != users {
			t.Errorf("%d users: %d requests completed, %d failed", users, res.Steps[0].Requests.Completed, res.Steps[0].Requests.Failed)
		}
		return err
	}

	free, _, ok := procfd.Free()
	if !ok {
		t.Skip("this system does not say how many files a process may open")
	}
	_, limit, _ := procfd.Free()
	lowered := syscall.Rlimit{Cur: uint64(limit - free + 100), Max: uint64(limit)}
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lowered); err != nil {
		t.Skip("cannot lower the limit of open files:", err)
	}
	if err := run(30); err != nil { // 60 files and the spare: within 100
		t.Fatalf("30 users under a limit 100 files above what is open: %v", err)
	}
	before := srv.Requests()
	err := run(60)
	if err == nil {
		t.Fatal("60 users (120 files) ran under a limit 100 files above what is open")
	}
	for _, want := range []string{"60 streams need 120 files", "ulimit -n", "--shard"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error does not say %q: %v", want, err)
		}
	}
	if got := srv.Requests() - before; got != 0 {
		t.Errorf("the refused plan sent %d requests", got)
	}
	// past what any process may open, no limit would do
	if most, ok := procfd.Ceiling(); ok {
		err := run(most)
		if err == nil || !strings.Contains(err.Error(), "more than one process may open here") || strings.Contains(err.Error(), "ulimit") {
			t.Errorf("%d users, past fs.nr_open: %v", most, err)
		}
	}
}
