package servergrid

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tpsbench/tpsbench/metrics"
)

// TestMain lets the test binary be a sweep's server: with SWEEP_TEST_SERVE
// set to a port it answers every request there until killed.
func TestMain(m *testing.M) {
	if port := os.Getenv("SWEEP_TEST_SERVE"); port != "" {
		fmt.Println("serving on", port)
		_ = http.ListenAndServe("127.0.0.1:"+port, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			fmt.Fprint(w, `{"data":[]}`)
		}))
		os.Exit(1)
	}
	os.Exit(m.Run())
}

func TestGrid(t *testing.T) {
	g, err := ParseGrid("seqs=1,4 mode=a,b", false)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range g.Points() {
		got = append(got, p.String())
	}
	want := []string{"seqs=1 mode=a", "seqs=1 mode=b", "seqs=4 mode=a", "seqs=4 mode=b"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("product %v", got)
	}
	z, err := ParseGrid("seqs=1,4 mode=a,b", true)
	if err != nil || len(z.Points()) != 2 || z.Points()[1].String() != "seqs=4 mode=b" {
		t.Errorf("zip %v %v", z.Points(), err)
	}
	for _, bad := range []string{"", "seqs", "seqs=", "port=1,2", "a=1 a=2", "1a=2"} {
		if _, err := ParseGrid(bad, false); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	if _, err := ParseGrid("a=1,2 b=1", true); err == nil {
		t.Error("zip of unequal keys accepted")
	}
	p := g.Points()[3]
	if s, err := p.Expand("serve --max-num-seqs {seqs} --addr 127.0.0.1:{port} --{mode}", 8123); err != nil || s != "serve --max-num-seqs 4 --addr 127.0.0.1:8123 --b" {
		t.Errorf("expand %q %v", s, err)
	}
	if _, err := p.Expand("serve {threads}", 1); err == nil || !strings.Contains(err.Error(), "{threads}") {
		t.Errorf("an unknown placeholder: %v", err)
	}
}

// TestParetoAndBest: worked by hand over (system TPS, per-request TPS):
// (100, 50) and (200, 30) are on the front, (90, 40) is beaten by the
// first; the best point meeting its targets is the highest system TPS
// among those that did.
func TestParetoAndBest(t *testing.T) {
	mk := func(sys, req float64, pass bool) Result {
		s := metrics.Summary{SystemTPS: sys}
		s.RequestTPS.Mean = req
		return Result{Outcome: Outcome{Steps: []metrics.Summary{s}, Pass: pass}}
	}
	rs := []Result{mk(100, 50, true), mk(200, 30, false), mk(90, 40, true), {Err: "failed"}}
	markPareto(rs)
	if !rs[0].Pareto || !rs[1].Pareto || rs[2].Pareto || rs[3].Pareto {
		t.Errorf("front %v %v %v %v", rs[0].Pareto, rs[1].Pareto, rs[2].Pareto, rs[3].Pareto)
	}
	if best, err := Best(rs); err != nil || best.Steps[0].SystemTPS != 100 {
		t.Errorf("best %+v %v", best, err)
	}
	if _, err := Best(rs[1:2]); err != ErrNoPoint {
		t.Errorf("no passing point: %v", err)
	}
}

// TestRun: a sweep of three points whose servers are this test binary
// (one of them a command that fails at once): each started server is
// measured at its own port and stopped; the failing point is kept with
// its log's tail and the sweep goes on; a resumed sweep measures only
// what was not measured.
func TestRun(t *testing.T) {
	dir := t.TempDir()
	g, _ := ParseGrid("mode=ok,fail,ok2", false)
	exe, _ := os.Executable()
	o := Options{
		ServeCmd: fmt.Sprintf(`if [ {mode} = fail ]; then echo "no such model" >&2; exit 3; fi; SWEEP_TEST_SERVE={port} exec %q`, exe),
		Grid:     g, Dir: dir, API: "chat", ReadyTimeout: 20 * time.Second, StopGrace: 5 * time.Second,
	}
	measured := map[string]string{}
	measure := func(_ context.Context, p Point, url, pointDir string) (Outcome, error) {
		measured[p.Values[0]] = url
		resp, err := http.Get(url + "/v1/models")
		if err != nil {
			return Outcome{}, err
		}
		resp.Body.Close()
		port, _ := strconv.Atoi(url[strings.LastIndex(url, ":")+1:])
		return Outcome{Steps: []metrics.Summary{{SystemTPS: float64(port % 100)}}, Pass: true}, nil
	}
	rs, err := Run(context.Background(), o, measure)
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 3 || rs[1].Err == "" || !strings.Contains(rs[1].Err, "no such model") || len(rs[0].Steps) != 1 || len(rs[2].Steps) != 1 {
		t.Fatalf("results %+v", rs)
	}
	if len(measured) != 2 || measured["ok"] == measured["ok2"] {
		t.Errorf("measured %v", measured)
	}
	// each server was stopped: its port answers no more
	for _, u := range measured {
		if resp, err := http.Get(u + "/v1/models"); err == nil {
			resp.Body.Close()
			t.Errorf("the server at %s still answers", u)
		}
	}
	// an earlier sweep's points are neither replaced without a word nor
	// measured again unasked
	if _, err := Run(context.Background(), o, measure); err == nil || !strings.Contains(err.Error(), "holds 2 points an earlier sweep measured") {
		t.Errorf("a sweep into an earlier one's folder: %v", err)
	}
	measured = map[string]string{}
	o.Resume = true
	rs, err = Run(context.Background(), o, measure)
	if err != nil {
		t.Fatal(err)
	}
	if len(measured) != 0 || !rs[0].Resumed || !rs[2].Resumed || rs[1].Err == "" {
		t.Errorf("resume measured %v: %+v", measured, rs)
	}
	if _, err := os.Stat(filepath.Join(rs[0].Dir, "server.log")); err != nil {
		t.Errorf("no server log: %v", err)
	}
	o.Resume, o.Force, measured = false, true, map[string]string{}
	if _, err := Run(context.Background(), o, measure); err != nil || len(measured) != 2 {
		t.Errorf("forced: %v, measured %v again", err, measured)
	}
}

// TestParetoOfRepeats: a repeated point is placed by its means across runs,
// not by its first run.
func TestParetoOfRepeats(t *testing.T) {
	mk := func(first, mean float64) Result {
		return Result{Outcome: Outcome{Steps: []metrics.Summary{{SystemTPS: first}}, Pass: true,
			Repeats: []metrics.Repeat{{Figures: map[string]metrics.Interval{"system_tps": {Mean: mean}, "request_tps_mean": {Mean: 10}}}}}}
	}
	rs := []Result{mk(300, 100), mk(50, 200)}
	markPareto(rs)
	if rs[0].Pareto || !rs[1].Pareto {
		t.Errorf("front by first runs, not means: %v %v", rs[0].Pareto, rs[1].Pareto)
	}
	if best, _ := Best(rs); best.Repeats[0].Figures["system_tps"].Mean != 200 {
		t.Errorf("best %+v", best)
	}
}

// TestGridFile: a grid file in its two shapes gives the points the
// inline grid would: keys with values (a product, or zipped; a single
// value is a list of one), and vLLM's list of points (taken as listed,
// keys in any order); JSON is read as YAML. Points that name other keys,
// a key twice, nested values or the sweep's own port are refused.
func TestGridFile(t *testing.T) {
	points := func(g Grid) []string {
		var out []string
		for _, p := range g.Points() {
			out = append(out, p.String())
		}
		return out
	}
	cases := []struct {
		name, file string
		zip        bool
		want       []string
	}{
		{"product", "max_num_seqs: [4, 16]\nenable_chunked_prefill: [true, false]\nthreads: 2\n", false,
			[]string{"max_num_seqs=4 enable_chunked_prefill=true threads=2", "max_num_seqs=4 enable_chunked_prefill=false threads=2",
				"max_num_seqs=16 enable_chunked_prefill=true threads=2", "max_num_seqs=16 enable_chunked_prefill=false threads=2"}},
		{"zipped", "seqs: [1, 8]\nmode:\n  - latency\n  - throughput\n", true, []string{"seqs=1 mode=latency", "seqs=8 mode=throughput"}},
		{"vLLM's list", `[{"max_num_seqs": 32, "max_num_batched_tokens": 1024}, {"max_num_batched_tokens": 2048, "max_num_seqs": 64}]`, false,
			[]string{"max_num_seqs=32 max_num_batched_tokens=1024", "max_num_seqs=64 max_num_batched_tokens=2048"}},
	}
	for _, c := range cases {
		g, err := ParseGridFile([]byte(c.file), c.zip)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if got := points(g); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: %q\nwant %q", c.name, got, c.want)
		}
	}
	for _, bad := range []string{"", "3", "a: {b: 1}", "a: [[1]]", "port: [1]", "a: []", "[{a: 1}, {b: 2}]", "[{a: 1}, {a: 2, b: 3}]", "[{a: 1, a: 2}]", "[1, 2]", "a: [1"} {
		if _, err := ParseGridFile([]byte(bad), false); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// FuzzGridFile: any file gives a grid within its rules, or an error.
func FuzzGridFile(f *testing.F) {
	f.Add([]byte("a: [1, 2]\nb: x\n"), false)
	f.Add([]byte(`[{"a": 1, "b": 2}, {"b": 3, "a": 4}]`), true)
	f.Fuzz(func(t *testing.T, data []byte, zip bool) {
		g, err := ParseGridFile(data, zip)
		if err != nil {
			return
		}
		if g.check() != nil || len(g.Points()) == 0 {
			t.Fatalf("grid %+v", g)
		}
	})
}

// TestRank: by system TPS the highest first, by cost the cheapest first;
// failed points and points without a price go last in the grid's order;
// an unknown ranking is an error.
func TestRank(t *testing.T) {
	mk := func(name string, sys, cost float64) Result {
		s := metrics.Summary{SystemTPS: sys}
		if cost > 0 {
			s.Cost = &metrics.Cost{PerMillionOutput: cost}
		}
		return Result{Dir: name, Outcome: Outcome{Steps: []metrics.Summary{s}}}
	}
	order := func(rs []Result) string {
		var names []string
		for _, r := range rs {
			names = append(names, r.Dir)
		}
		return strings.Join(names, " ")
	}
	base := []Result{mk("a", 100, 3), {Dir: "failed", Err: "x"}, mk("b", 300, 2), mk("unpriced", 50, 0), mk("c", 200, 1)}
	for _, c := range []struct{ by, want string }{
		{"", "a failed b unpriced c"},
		{RankSystemTPS, "b c a unpriced failed"},
		{RankCost, "c b a failed unpriced"},
	} {
		rs := append([]Result(nil), base...)
		if err := Rank(rs, c.by); err != nil || order(rs) != c.want {
			t.Errorf("rank by %q: %s (%v), want %s", c.by, order(rs), err, c.want)
		}
	}
	if Rank(base, "ttft") == nil {
		t.Error("rank by ttft accepted")
	}
}
