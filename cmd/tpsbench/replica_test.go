package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/tpsbench/tpsbench/internal/scripted"
)

// TestReplicas: --replica with --balance round-robin sends 10 requests 5
// to each server (their own counts), and the report's figures of each
// server count what it received.
func TestReplicas(t *testing.T) {
	a := scripted.New(scripted.Script{Usage: true})
	defer a.Close()
	b := scripted.New(scripted.Script{Usage: true})
	defer b.Close()
	code, out, errs := cli(t, "run", "--url", a.URL, "--replica", b.URL, "--model", "m", "--api", "chat", "--max-tokens", "3",
		"--requests", "10", "--concurrency", "3", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if a.Requests() != 5 || b.Requests() != 5 {
		t.Errorf("the servers received %d and %d, want 5 each", a.Requests(), b.Requests())
	}
	var rep struct {
		Steps []struct {
			URLs []struct {
				Name      string `json:"name"`
				Completed int    `json:"completed"`
			} `json:"urls"`
		} `json:"steps"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Steps[0].URLs) != 2 {
		t.Fatalf("report servers %+v", rep.Steps[0].URLs)
	}
	for _, u := range rep.Steps[0].URLs {
		want := a.Requests()
		if strings.HasPrefix(u.Name, b.URL) {
			want = b.Requests()
		}
		if u.Completed != want {
			t.Errorf("%s: %d completed in the report, the server received %d", u.Name, u.Completed, want)
		}
	}
	for _, bad := range [][]string{{"--replica", b.URL}, {"--url", a.URL, "--replica", b.URL, "--balance", "random"}, {"--url", a.URL, "--replica", "ftp://x"}} {
		if code, _, errs := cli(t, append([]string{"run", "--model", "m"}, bad...)...); code != exitUsage {
			t.Errorf("%v: exit %d %s", bad, code, errs)
		}
	}
}
