package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/tpsbench/tpsbench/internal/scripted"
)

// TestDatasetAsTheServerSawIt: --prompts with --prompt-column,
// --system-column and --output-column sends each kept row as the server
// then received it (its system message first, its output length as
// max_tokens), and stderr says how many rows were kept and why the others
// were dropped.
func TestDatasetAsTheServerSawIt(t *testing.T) {
	srv := scripted.New(scripted.Script{Usage: true})
	defer srv.Close()
	data := filepath.Join(t.TempDir(), "data.csv")
	os.WriteFile(data, []byte("question,sys,answer\nWhat is TPS?,Be brief.,4\nWhy?,,2\n,,9\n"), 0o644)
	code, _, errs := cli(t, "run", "--url", srv.URL, "--model", "m", "--api", "chat", "--prompts", data,
		"--prompt-column", "question", "--system-column", "sys", "--output-column", "answer", "--requests", "2")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(errs, "prompts: 2 of 3 rows kept; 1 without a prompt") {
		t.Errorf("stderr:\n%s", errs)
	}
	var got []string
	for _, s := range srv.All() {
		var body struct {
			MaxTokens int `json:"max_tokens"`
			Messages  []struct{ Role, Content string }
		}
		json.Unmarshal(s.Request, &body)
		var parts []string
		for _, m := range body.Messages {
			parts = append(parts, m.Role+": "+m.Content)
		}
		got = append(got, strings.Join(parts, " | ")+" ("+strings.Repeat("x", body.MaxTokens)+")")
	}
	sort.Strings(got)
	want := []string{"system: Be brief. | user: What is TPS? (xxxx)", "user: Why? (xx)"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("the server received\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if code, _, errs := cli(t, "run", "--url", srv.URL, "--model", "m", "--prompts", data, "--prompt-column", "nothing"); code == 0 || !strings.Contains(errs, `the prompt column is "nothing"`) {
		t.Errorf("a column that is not there: exit %d %s", code, errs)
	}
}

// TestSeqDistAsTheServerSawIt: --seq-dist '8,3:1;16,5:1' sends every
// request with one mode's budget (the scripted server received 3 or 5,
// both), and refuses being given beside --input-tokens.
func TestSeqDistAsTheServerSawIt(t *testing.T) {
	srv := scripted.New(scripted.Script{Usage: true})
	defer srv.Close()
	if code, _, errs := cli(t, "run", "--url", srv.URL, "--model", "m", "--seq-dist", "8,3:1;16,5:1", "--requests", "24", "--concurrency", "4", "-q"); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	seen := map[int]int{}
	for _, s := range srv.All() {
		var body struct {
			MaxTokens int `json:"max_tokens"`
		}
		json.Unmarshal(s.Request, &body)
		seen[body.MaxTokens]++
	}
	if len(seen) != 2 || seen[3] == 0 || seen[5] == 0 {
		t.Errorf("budgets received %v, want 3 and 5", seen)
	}
	if code, _, errs := cli(t, "run", "--url", srv.URL, "--model", "m", "--seq-dist", "8,3", "--input-tokens", "9"); code != exitUsage || !strings.Contains(errs, "--seq-dist") {
		t.Errorf("beside --input-tokens: exit %d %s", code, errs)
	}
}

// TestCorpusAsTheServerSawIt: --corpus makes synthetic prompts of the
// file's lines: every prompt the server received is made of them.
func TestCorpusAsTheServerSawIt(t *testing.T) {
	srv := scripted.New(scripted.Script{Usage: true})
	defer srv.Close()
	corpus := filepath.Join(t.TempDir(), "sonnet.txt")
	os.WriteFile(corpus, []byte("Shall I compare thee to a summer's day\nThou art more lovely and more temperate\n"), 0o644)
	if code, _, errs := cli(t, "run", "--url", srv.URL, "--model", "m", "--api", "completions", "--corpus", corpus, "--input-tokens", "12",
		"--requests", "3", "-q"); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	words := map[string]bool{}
	for _, w := range strings.Fields("Shall I compare thee to a summer's day Thou art more lovely and more temperate") {
		words[w] = true
	}
	for _, s := range srv.All() {
		var body struct{ Prompt string }
		json.Unmarshal(s.Request, &body)
		if len(strings.Fields(body.Prompt)) == 0 {
			t.Fatalf("an empty prompt: %s", s.Request)
		}
		for _, w := range strings.Fields(body.Prompt) {
			if !words[w] {
				t.Errorf("the prompt %q has %q, not of the corpus", body.Prompt, w)
			}
		}
	}
	if code, _, errs := cli(t, "run", "--url", srv.URL, "--model", "m", "--corpus", corpus); code != exitUsage || !strings.Contains(errs, "--corpus") {
		t.Errorf("without a length: exit %d %s", code, errs)
	}
}

// TestSpecBenchAsTheServerSawIt: --spec-bench-category coding sends only
// the coding rows' first turns (the server received each once, with
// --requests as many as were kept), and says on stderr how many rows
// another category left out; without --prompts it is a usage error.
func TestSpecBenchAsTheServerSawIt(t *testing.T) {
	srv := scripted.New(scripted.Script{Usage: true})
	defer srv.Close()
	data := filepath.Join(t.TempDir(), "question.jsonl")
	os.WriteFile(data, []byte(`{"question_id": 1, "category": "writing", "turns": ["Write a haiku.", "Now a limerick."]}
{"question_id": 2, "category": "coding", "turns": ["Reverse a list in Go.", "Now in place."]}
{"question_id": 3, "category": "coding", "turns": ["Sum a slice."]}
`), 0o644)
	code, _, errs := cli(t, "run", "--url", srv.URL, "--model", "m", "--api", "chat", "--prompts", data, "--spec-bench-category", "coding", "--requests", "2", "--concurrency", "1")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(errs, "prompts: 2 of 3 rows kept; 1 in another category") {
		t.Errorf("stderr:\n%s", errs)
	}
	var got []string
	for _, s := range srv.All() {
		var body struct {
			Messages []struct{ Role, Content string }
		}
		json.Unmarshal(s.Request, &body)
		if len(body.Messages) != 1 {
			t.Fatalf("the server received %s", s.Request)
		}
		got = append(got, body.Messages[0].Content)
	}
	sort.Strings(got)
	if want := "Reverse a list in Go.|Sum a slice."; strings.Join(got, "|") != want {
		t.Errorf("the server received %q, want %q", got, want)
	}
	for _, bad := range [][]string{{"--spec-bench-category", "coding"}, {"--prompts", data, "--spec-bench-category", "coding,"}, {"--prompts", data, "--spec-bench-category", "all", "--prompt-column", "q"}} {
		if code, _, errs := cli(t, append([]string{"run", "--url", srv.URL, "--model", "m"}, bad...)...); code != exitUsage || !strings.Contains(errs, "--spec-bench-category") {
			t.Errorf("%v: exit %d %s", bad, code, errs)
		}
	}
}

// TestParquetAsTheServerSawIt: a Parquet dataset (workload's fixture,
// written by another implementation) sends its messages column as the
// server then received it, each row's max_len as its budget; without a
// prompt column it is a usage error naming the flag.
func TestParquetAsTheServerSawIt(t *testing.T) {
	srv := scripted.New(scripted.Script{Usage: true})
	defer srv.Close()
	data := "../../workload/testdata/spec-bench.parquet"
	code, _, errs := cli(t, "run", "--url", srv.URL, "--model", "m", "--api", "chat", "--prompts", data, "--prompt-column", "messages", "--output-column", "max_len",
		"--max-tokens", "9", "--requests", "2", "--concurrency", "1")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(errs, "prompts: 2 of 4 rows kept; 1 whose prompt or system is not text (or messages); 1 without a prompt") {
		t.Errorf("stderr:\n%s", errs)
	}
	var got []string
	for _, s := range srv.All() {
		var body struct {
			MaxTokens int `json:"max_tokens"`
			Messages  []struct{ Role, Content string }
		}
		json.Unmarshal(s.Request, &body)
		var parts []string
		for _, m := range body.Messages {
			parts = append(parts, m.Role+": "+m.Content)
		}
		got = append(got, fmt.Sprintf("%s (%d)", strings.Join(parts, " | "), body.MaxTokens))
	}
	sort.Strings(got)
	if want := "system: Be brief. | user: hi (12)\nuser: x (9)"; strings.Join(got, "\n") != want {
		t.Errorf("the server received\n%s\nwant\n%s", strings.Join(got, "\n"), want)
	}
	if code, _, errs := cli(t, "run", "--url", srv.URL, "--model", "m", "--prompts", data); code != exitUsage || !strings.Contains(errs, "--prompt-column") {
		t.Errorf("no prompt column: exit %d %s", code, errs)
	}
}

// TestBadInputFilesExitTwo: a file the command line names to read that
// cannot be used is bad input, as a bad flag is (exit 2), whichever kind
// it is, and its message names it.
func TestBadInputFilesExitTwo(t *testing.T) {
	dir := t.TempDir()
	garbage := filepath.Join(dir, "garbage.jsonl")
	os.WriteFile(garbage, []byte("{not json\n"), 0o644)
	for _, args := range [][]string{
		{"run", "--url", "http://127.0.0.1:1", "--model", "m", "--prompts", garbage, "--prompt-column", "q"},
		{"run", "--url", "http://127.0.0.1:1", "--model", "m", "--prompts", filepath.Join(dir, "none.jsonl")},
		{"run", "--url", "http://127.0.0.1:1", "--model", "m", "--trace", garbage},
		{"report", garbage},
		{"compare", garbage, garbage},
		{"merge", garbage, "-o", filepath.Join(dir, "out.jsonl")},
	} {
		code, _, errs := cli(t, args...)
		if code != exitUsage || !strings.Contains(errs, dir) {
			t.Errorf("%v: exit %d, %q; want %d naming the file", args, code, errs, exitUsage)
		}
	}
}
