package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/tpsbench/tpsbench/internal/scripted"
	"github.com/tpsbench/tpsbench/record"
)

// TestReplayCommand: run --trace replays a Mooncake trace against a
// server, each record keeping what the trace asked, and the report saying
// how faithful the replay was; the records replay in turn as a trace.
func TestReplayCommand(t *testing.T) {
	srv := server(t)
	dir := t.TempDir()
	tr := filepath.Join(dir, "trace.jsonl")
	os.WriteFile(tr, []byte(`{"timestamp": 0, "input_length": 30, "output_length": 4, "hash_ids": [1]}
{"timestamp": 40, "input_length": 31, "output_length": 6, "hash_ids": [1]}
{"timestamp": 20, "input_length": 12, "output_length": 5, "hash_ids": [2]}
`), 0o644)
	out := filepath.Join(dir, "replay.jsonl")
	code, stdout, errs := cli(t, "run", "--url", srv.URL, "--trace", tr, "--records", out, "-q")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(stdout, "Replay of a trace, 3 requests") || !strings.Contains(stdout, "outputs of the trace's length: 3 of 3 completed") {
		t.Errorf("report:\n%s", stdout)
	}
	f, _ := os.Open(out)
	defer f.Close()
	rd := record.NewReader(f, out)
	lines := map[int]int{}
	for {
		var r record.Record
		if rd.Next(&r) != nil {
			break
		}
		if r.Trace == nil || r.MaxTokens != r.Trace.OutputTokens || r.OutputTokens != r.Trace.OutputTokens {
			t.Fatalf("record %+v", r)
		}
		lines[r.Trace.Line] = r.OutputTokens
	}
	if len(lines) != 3 || lines[1] != 4 || lines[2] != 6 || lines[3] != 5 {
		t.Errorf("replayed lines %v", lines)
	}
	// its records are a trace too (the scripted server counts 3 prompt
	// tokens each)
	code, stdout, errs = cli(t, "run", "--url", srv.URL, "--trace", out, "--trace-speed", "4", "-q")
	if code != 0 || !strings.Contains(stdout, "Replay of a trace, 3 requests") {
		t.Errorf("replaying the replay: exit %d: %s%s", code, stdout, errs)
	}
}

func TestReplayRefusals(t *testing.T) {
	srv := server(t)
	dir := t.TempDir()
	good := filepath.Join(dir, "good.jsonl")
	os.WriteFile(good, []byte(`{"timestamp": 0, "input_length": 3, "output_length": 2}`+"\n"), 0o644)
	bad := filepath.Join(dir, "bad.jsonl")
	os.WriteFile(bad, []byte(`{"timestamp": 0, "input_length": 3, "output_length": 2}`+"\n"+`{"timestamp": 5, "input_length": -3, "output_length": 2}`+"\n"), 0o644)
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--trace", good, "--rate", "3"}, 2, "drop --rate"},
		{[]string{"--trace", good, "--sweep", "1,2"}, 2, "drop --sweep"},
		{[]string{"--trace", good, "--max-tokens", "9"}, 2, "drop --max-tokens"},
		{[]string{"--trace-speed", "2"}, 2, "--trace-speed goes with --trace"},
		{[]string{"--trace", good, "--trace-speed", "0"}, 2, "--trace-speed 0"},
		{[]string{"--trace", good, "--trace-window", "5s-2s"}, 2, "--trace-window"},
		{[]string{"--trace", good, "--trace-format", "csv"}, 2, "--trace-format"},
		{[]string{"--trace", filepath.Join(dir, "none.jsonl")}, exitUsage, "opening the trace"},
		{[]string{"--trace", good, "--records", good}, 2, "--trace"},
		// a line gone bad past the start: the figures come out, and the error names the line
		{[]string{"--trace", bad}, 1, "bad.jsonl:2: input_length -3"},
		{[]string{"--trace", good, "--trace-window", "1h-"}, 1, "good.jsonl: no request to replay"},
	} {
		code, _, errs := cli(t, append([]string{"run", "--url", srv.URL, "-q"}, c.args...)...)
		if code != c.code || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, %q; want %d and %q", c.args, code, errs, c.code, c.want)
		}
	}
}

// TestNativeAPIs: run speaks each server's own API, or finds it (the
// scripted server answers TGI's /info and OpenAI's /v1/models: auto takes
// the OpenAI path, and says why); the embedded engine refuses the ones it
// does not serve.
func TestNativeAPIs(t *testing.T) {
	srv := server(t)
	for _, api := range []string{"responses", "llamacpp", "tgi", "sglang", "anthropic", "auto"} {
		code, stdout, errs := cli(t, "run", "--url", srv.URL, "--api", api, "--requests", "2", "--concurrency", "2", "--max-tokens", "5", "-q")
		if code != 0 || !strings.Contains(stdout, "Total tokens: 10 generated") {
			t.Errorf("--api %s: exit %d:\n%s%s", api, code, stdout, errs)
		}
	}
	code, stdout, errs := cli(t, "run", "--url", srv.URL, "--api", "auto", "--max-tokens", "3", "--requests", "1")
	if code != 0 || !strings.Contains(stdout, "/v1/chat/completions (chat)") || !strings.Contains(errs, "--api auto: chat, for it lists models at /v1/models") {
		t.Errorf("--api auto against a TGI-like server that speaks OpenAI's API too:\n%s%s", stdout, errs)
	}
	if code, _, errs := cli(t, "run", "--engine-model", "tiny", "--api", "tgi"); code != 2 || !strings.Contains(errs, "the embedded engine serves chat, completions and embeddings") {
		t.Errorf("embedded engine with --api tgi: exit %d, %s", code, errs)
	}
	if code, _, errs := cli(t, "run", "--url", srv.URL, "--api", "grpc"); code != 2 || !strings.Contains(errs, "want chat, completions, responses") {
		t.Errorf("--api grpc: exit %d, %s", code, errs)
	}
}

// TestReplayShards: --shard I/N replays every N-th request of the trace,
// each at its time, so that shards together replay it once.
func TestReplayShards(t *testing.T) {
	srv := server(t)
	dir := t.TempDir()
	tr := filepath.Join(dir, "trace.jsonl")
	var b strings.Builder
	for i := 0; i < 6; i++ {
		b.WriteString(`{"timestamp": ` + strconv.Itoa(10*i) + `, "input_length": 5, "output_length": 2}` + "\n")
	}
	os.WriteFile(tr, []byte(b.String()), 0o644)
	lines := map[int]int{}
	for i := 0; i < 2; i++ {
		out := filepath.Join(dir, "shard"+strconv.Itoa(i)+".jsonl")
		if code, _, errs := cli(t, "run", "--url", srv.URL, "--trace", tr, "--shard", strconv.Itoa(i)+"/2", "--records", out, "-q"); code != 0 {
			t.Fatalf("shard %d: exit %d: %s", i, code, errs)
		}
		f, _ := os.Open(out)
		rd := record.NewReader(f, out)
		for {
			var r record.Record
			if rd.Next(&r) != nil {
				break
			}
			lines[r.Trace.Line]++
			if (r.Trace.Line-1)%2 != i || r.Trace.Offset != int64(10*(r.Trace.Line-1))*1e6 {
				t.Errorf("shard %d replayed line %d at %d ns", i, r.Trace.Line, r.Trace.Offset)
			}
		}
		f.Close()
	}
	if len(lines) != 6 {
		t.Errorf("shards replayed lines %v", lines)
	}
}

// TestTraceFitsTheContext: a trace's requests are clipped to fit the
// context the server gives at /v1/models (a trace of 6,909-token prompts
// on a 4,096-token engine failed 81 of 113 requests), scaled by
// --trace-input-scale, and the run says how many were clipped.
func TestTraceFitsTheContext(t *testing.T) {
	h := scripted.NewHandler(func(int) scripted.Script { return scripted.Script{Usage: true} }, false)
	mux := http.NewServeMux()
	mux.HandleFunc("/v1/models", func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"object":"list","data":[{"id":"scripted","object":"model","max_model_len":100}]}`)
	})
	mux.Handle("/", h)
	srv := httptest.NewServer(mux)
	defer srv.Close()
	dir := t.TempDir()
	tr := filepath.Join(dir, "t.jsonl")
	os.WriteFile(tr, []byte(`{"timestamp": 0, "input_length": 500, "output_length": 10}`+"\n"+`{"timestamp": 1, "input_length": 40, "output_length": 10}`+"\n"), 0o644)
	for _, c := range []struct {
		scale   string
		inputs  [2]int
		clipped string
	}{{"1", [2]int{90, 40}, "1 requests were replayed shorter"}, {"0.1", [2]int{50, 4}, ""}} {
		recs := filepath.Join(dir, "r"+c.scale+".jsonl")
		code, _, errs := cli(t, "run", "--url", srv.URL, "--model", "scripted", "--api", "chat", "--trace", tr, "--trace-input-scale", c.scale, "--records", recs, "-q")
		if code != 0 || (c.clipped != "") != strings.Contains(errs, "replayed shorter") || !strings.Contains(errs, c.clipped) {
			t.Errorf("scale %s: exit %d, %s", c.scale, code, errs)
		}
		if c.scale == "1" {
			// warned of before the run, not only counted after it
			_, _, errs := cli(t, "run", "--url", srv.URL, "--model", "scripted", "--api", "chat", "--trace", tr, "--requests", "1")
			if !strings.Contains(errs, "trace: 1 of the first 2 requests do not fit the context of 100 tokens the server gives (the first on line 1)") {
				t.Errorf("no warning before the run: %s", errs)
			}
		}
		var got []int
		readRecords(recs, io.Discard, func(r *record.Record) { got = append(got, r.Trace.InputTokens) })
		slices.Sort(got)
		want := c.inputs[:]
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("scale %s: inputs replayed %v, want %v", c.scale, got, want)
		}
	}
}

// TestReplayBurstGPT: BurstGPT's CSV replays as a trace: the server
// receives each logged request's response length as its budget, the row
// that failed in the log is left out, and the report says so.
func TestReplayBurstGPT(t *testing.T) {
	srv := scripted.New(scripted.Script{Usage: true})
	defer srv.Close()
	tr := filepath.Join(t.TempDir(), "burst.csv")
	os.WriteFile(tr, []byte("Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\n"+
		"5,ChatGPT,40,7,47,Conversation log\n45,ChatGPT,108,0,108,Conversation log\n46.5,GPT-4,41,9,50,API log\n"), 0o644)
	code, stdout, errs := cli(t, "run", "--url", srv.URL, "--model", "m", "--trace", tr, "--trace-speed", "1000")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(errs, "2 requests replayed, 1 skipped") {
		t.Errorf("stderr does not count the row left out:\n%s", errs)
	}
	var budgets []int
	for _, s := range srv.All() {
		var body struct {
			MaxTokens int `json:"max_tokens"`
		}
		json.Unmarshal(s.Request, &body)
		budgets = append(budgets, body.MaxTokens)
	}
	sort.Ints(budgets)
	if len(budgets) != 2 || budgets[0] != 7 || budgets[1] != 9 {
		t.Errorf("the server received budgets %v, want 7 and 9", budgets)
	}
	if !strings.Contains(stdout, "Replay of a trace, 2 requests") {
		t.Errorf("report:\n%s", stdout)
	}
}
