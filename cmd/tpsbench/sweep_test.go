package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestSweepServe: a sweep over the embedded engine's --max-num-seqs and
// --enable-chunked-prefill (zipped: two points), each
// point's server (this tpsbench, serve) started at its own port, measured
// by run, and stopped: a row a point, the front marked, the best point
// under the target named; --resume keeps what was measured; --dry-run
// says the commands.
func TestSweepServe(t *testing.T) {
	bin := binary(t)
	dir := t.TempDir()
	sweepArgs := []string{"sweep", "--serve-cmd", bin + " serve --model tiny --threads 1 --max-num-seqs {seqs} --enable-chunked-prefill={chunked} --addr 127.0.0.1:{port}",
		"--grid", "seqs=1,4 chunked=false,true", "--zip", "--dir", dir, "--ready-timeout", "2m"}
	runArgs := []string{"--", "--concurrency", "4", "--requests", "8", "--max-tokens", "8", "--slo", "system_tps=1", "--repeat", "2"}
	code, out, errs := cli(t, append(append([]string{}, sweepArgs...), runArgs...)...)
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	// each point run twice: its system TPS a mean with its interval
	for _, want := range []string{"seqs=1 chunked=false", "seqs=4 chunked=true", "system TPS", "Best point meeting every target: seqs=", " ["} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(out, "*") {
		t.Errorf("no point on the front:\n%s", out)
	}
	code, js, errs := cli(t, append(append(append([]string{}, sweepArgs...), "--resume", "--format", "json"), runArgs...)...)
	if code != 0 {
		t.Fatalf("resume: exit %d %s", code, errs)
	}
	var res struct {
		Points []struct {
			Params  map[string]string `json:"params"`
			Resumed bool              `json:"resumed"`
			Steps   []struct {
				Requests struct{ Completed int } `json:"requests"`
			} `json:"steps"`
		} `json:"points"`
		Best string `json:"best"`
	}
	if err := json.Unmarshal([]byte(js), &res); err != nil {
		t.Fatalf("%v\n%s", err, js)
	}
	if len(res.Points) != 2 || !res.Points[0].Resumed || !res.Points[1].Resumed || res.Points[0].Steps[0].Requests.Completed != 8 || res.Best == "" {
		t.Errorf("resumed sweep %+v", res)
	}
	if !strings.HasPrefix(res.Best, dir) || filepath.Base(res.Best) == "" {
		t.Errorf("best %q", res.Best)
	}
	code, _, errs = cli(t, "sweep", "--serve-cmd", "serve --seqs {seqs} --port {port}", "--grid", "seqs=2,8", "--dry-run")
	if code != 0 || !strings.Contains(errs, "serve --seqs 8 --port") {
		t.Errorf("dry run: exit %d %s", code, errs)
	}
	if code, _, errs := cli(t, "sweep", "--serve-cmd", "x {nope}", "--grid", "seqs=1", "--dir", dir); code == 0 || !strings.Contains(errs, "{nope}") {
		t.Errorf("an unknown placeholder: exit %d %s", code, errs)
	}
	// a grid file, vLLM's list of points, gives the commands it lists
	grid := filepath.Join(t.TempDir(), "grid.yaml")
	os.WriteFile(grid, []byte("- {seqs: 3, chunked: true}\n- {chunked: false, seqs: 12}\n"), 0o644)
	code, _, errs = cli(t, "sweep", "--serve-cmd", "serve --seqs {seqs} --chunked={chunked} --port {port}", "--grid-file", grid, "--dry-run")
	if code != 0 || !strings.Contains(errs, "serve --seqs 3 --chunked=true --port") || !strings.Contains(errs, "serve --seqs 12 --chunked=false --port") {
		t.Errorf("grid file: exit %d %s", code, errs)
	}
	if code, _, errs := cli(t, "sweep", "--serve-cmd", "x", "--grid", "a=1", "--grid-file", grid, "--dry-run"); code != exitUsage || !strings.Contains(errs, "--grid-file") {
		t.Errorf("both grids: exit %d %s", code, errs)
	}
}

// TestSweepInterrupted: Ctrl-C in the middle of a point stops that
// point's server (its port answers no more), keeps it unmeasured for
// --resume, and exits 130.
func TestSweepInterrupted(t *testing.T) {
	bin := binary(t)
	dir := t.TempDir()
	cmd := exec.Command(bin, "sweep", "--serve-cmd", bin+" serve --model tiny --threads 1 --addr 127.0.0.1:{port}", "--grid", "x=1,2",
		"--dir", dir, "--", "--concurrency", "1", "--duration", "60s", "--max-tokens", "8", "--grace", "100ms")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// wait until the first point is being measured: its records grow
	records := filepath.Join(dir, "000-x-1", "records.jsonl")
	for {
		if fi, err := os.Stat(records); err == nil && fi.Size() > 0 {
			break
		}
		if cmd.ProcessState != nil {
			t.Fatalf("the sweep ended: %s", stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	log, _ := os.ReadFile(filepath.Join(dir, "000-x-1", "server.log"))
	addr := regexp.MustCompile(`127\.0\.0\.1:[0-9]+`).FindString(string(log))
	cmd.Process.Signal(os.Interrupt)
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != exitInterrupted || !strings.Contains(stderr.String(), "--resume carries on") {
		t.Fatalf("exit %v: %s", err, stderr.String())
	}
	if _, err := os.Stat(filepath.Join(dir, "000-x-1", "point.json")); err == nil {
		t.Error("the interrupted point is kept as measured")
	}
	if addr == "" {
		t.Fatalf("no address in the server's log: %s", log)
	}
	if conn, err := net.Dial("tcp", addr); err == nil {
		conn.Close()
		t.Errorf("the server at %s still answers after the sweep stopped", addr)
	}
}

// TestSweepScriptedServer: a sweep over an arbitrary command, a scripted
// server whose speed is its flags: at -gap 25ms its tokens are 25 ms
// apart, so the point's TPOT is at least that (arrivals are stamped by the
// kernel, and the server sleeps the gap between sends); each point's
// command carried its values.
func TestSweepScriptedServer(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "scripted-server")
	if out, err := exec.Command("go", "build", "-o", bin, "../../bench/cmd/scripted-server").CombinedOutput(); err != nil {
		t.Fatalf("building the scripted server: %v\n%s", err, out)
	}
	dir := t.TempDir()
	code, js, errs := cli(t, "sweep", "--serve-cmd", bin+" -addr 127.0.0.1:{port} -ttft 1ms -gap {gap}", "--grid", "gap=1ms,25ms",
		"--dir", dir, "--format", "json", "--", "--model", "m", "--api", "chat", "--concurrency", "2", "--requests", "4", "--max-tokens", "10")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var res struct {
		Points []struct {
			Params  map[string]string `json:"params"`
			Command string            `json:"command"`
			Steps   []struct {
				TPOT struct{ P50 float64 } `json:"tpot_ms"`
			} `json:"steps"`
		} `json:"points"`
	}
	if err := json.Unmarshal([]byte(js), &res); err != nil {
		t.Fatalf("%v\n%s", err, js)
	}
	if len(res.Points) != 2 {
		t.Fatalf("points %+v", res.Points)
	}
	for _, p := range res.Points {
		if !strings.Contains(p.Command, "-gap "+p.Params["gap"]) || len(p.Steps) == 0 {
			t.Errorf("point %+v", p)
		}
	}
	if slow := res.Points[1].Steps[0].TPOT.P50; slow < 24 { // a little under for the stamps' own jitter
		t.Errorf("at -gap 25ms the TPOT p50 is %v ms", slow)
	}
	// the same points, resumed, as a page: a row a point and the
	// Pareto chart over them
	code, page, errs := cli(t, "sweep", "--serve-cmd", bin+" -addr 127.0.0.1:{port} -ttft 1ms -gap {gap}", "--grid", "gap=1ms,25ms",
		"--dir", dir, "--resume", "--format", "html", "--", "--model", "m", "--api", "chat", "--concurrency", "2", "--requests", "4", "--max-tokens", "10")
	if code != 0 {
		t.Fatalf("html: exit %d: %s", code, errs)
	}
	for _, want := range []string{"<td>gap=1ms</td>", "<td>gap=25ms</td>", `"id":"pareto"`, "Best point meeting every target: gap="} {
		if !strings.Contains(page, want) {
			t.Errorf("the page has no %s", want)
		}
	}
	// ranked by system TPS, the faster server (tokens 1 ms apart) first
	code, table, errs := cli(t, "sweep", "--serve-cmd", bin+" -addr 127.0.0.1:{port} -ttft 1ms -gap {gap}", "--grid", "gap=25ms,1ms",
		"--dir", dir, "--resume", "--rank-by", "system_tps", "--", "--model", "m", "--api", "chat", "--concurrency", "2", "--requests", "4", "--max-tokens", "10",
		"--slo", "ttft=10s")
	if fast, slow := strings.Index(table, "gap=1ms"), strings.Index(table, "gap=25ms"); code != 0 || fast < 0 || slow < 0 || fast > slow {
		t.Errorf("ranked by system TPS: exit %d\n%s%s", code, table, errs)
	}
	if !strings.Contains(table, "goodput req/s") { // a per-request target gives a goodput column
		t.Errorf("no goodput column:\n%s", table)
	}
	if code, _, errs := cli(t, "sweep", "--serve-cmd", "x", "--grid", "a=1", "--rank-by", "ttft", "--dry-run"); code != exitUsage || !strings.Contains(errs, "--rank-by") {
		t.Errorf("--rank-by ttft: exit %d %s", code, errs)
	}
	// --out writes the page whole, and refuses a file that exists before
	// measuring anything
	page2 := filepath.Join(t.TempDir(), "sweep.html")
	if code, _, errs := cli(t, "sweep", "--serve-cmd", bin+" -addr 127.0.0.1:{port} -ttft 1ms -gap {gap}", "--grid", "gap=1ms,25ms",
		"--dir", dir, "--resume", "--format", "html", "--out", page2, "--", "--model", "m", "--api", "chat", "--concurrency", "2", "--requests", "4", "--max-tokens", "10"); code != 0 {
		t.Errorf("--out: exit %d %s", code, errs)
	}
	if data, _ := os.ReadFile(page2); !strings.Contains(string(data), `"id":"pareto"`) {
		t.Errorf("--out %s holds no page", page2)
	}
	if code, _, errs := cli(t, "sweep", "--serve-cmd", "x", "--grid", "a=1", "--dir", dir, "--out", page2); code != exitUsage || !strings.Contains(errs, "--out") {
		t.Errorf("--out onto a file that exists: exit %d %s", code, errs)
	}
}

// TestSweepFindMax: a point measured by a --find-max search carries its
// answer into the sweep's table: with targets every level meets, the
// limit the search was given.
func TestSweepFindMax(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "scripted-server")
	if out, err := exec.Command("go", "build", "-o", bin, "../../bench/cmd/scripted-server").CombinedOutput(); err != nil {
		t.Fatalf("building the scripted server: %v\n%s", err, out)
	}
	// tokens 10 ms apart: each level's system TPS is the server's pace
	// times the level, whatever else the machine runs (at 1 ms a busy
	// machine's scheduling made 4 no faster than 2, and the answer 2)
	code, table, errs := cli(t, "sweep", "--serve-cmd", bin+" -addr 127.0.0.1:{port} -ttft 1ms -gap {gap}", "--grid", "gap=10ms",
		"--dir", t.TempDir(), "--", "--model", "m", "--api", "chat", "--max-tokens", "4", "--requests", "8", "--find-max", "--find-max-limit", "4", "--slo", "ttft=10s")
	if code != 0 || !strings.Contains(table, "max concurrency under targets") {
		t.Fatalf("exit %d\n%s%s", code, table, errs)
	}
	var row string
	for _, line := range strings.Split(table, "\n") {
		if strings.HasPrefix(line, "gap=10ms") {
			row = line
		}
	}
	if f := strings.Fields(row); len(f) == 0 || f[len(f)-1] != "4" {
		t.Errorf("the point's row %q, want its answer 4 last", row)
	}
}

// TestSweepSearch: --search measures the points a bisection chooses over
// a server flag's values in their order: with first tokens held back 1,
// 10, 50, 400 and 1600 ms and a target of 200 ms, it measures 1, 10 and
// 400 ms to bracket, then 50, and answers 50 ms, the highest meeting it
// (400 ms cannot, whatever the machine); a budget of two runs ends it
// after two.
func TestSweepSearch(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "scripted-server")
	if out, err := exec.Command("go", "build", "-o", bin, "../../bench/cmd/scripted-server").CombinedOutput(); err != nil {
		t.Fatalf("building the scripted server: %v\n%s", err, out)
	}
	args := []string{"sweep", "--serve-cmd", bin + " -addr 127.0.0.1:{port} -ttft {ttft} -gap 1ms", "--grid", "ttft=1ms,10ms,50ms,400ms,1600ms", "--search"}
	run := []string{"--", "--model", "m", "--api", "chat", "--max-tokens", "2", "--requests", "4", "--slo", "ttft=200ms"}
	code, table, errs := cli(t, append(append(args, "--dir", t.TempDir()), run...)...)
	if code != 0 || !strings.Contains(table, "Searched 4 of the grid's points") || !strings.Contains(table, "Highest values meeting every target: ttft=50ms") ||
		strings.Contains(table, "ttft=1600ms") {
		t.Fatalf("exit %d\n%s%s", code, table, errs)
	}
	code, table, errs = cli(t, append(append(args, "--dir", t.TempDir(), "--search-max-iterations", "2"), run...)...)
	if code != 0 || !strings.Contains(table, "the budget of 2 runs was spent") {
		t.Errorf("a budget of two: exit %d\n%s%s", code, table, errs)
	}
	if code, _, errs := cli(t, append(append(args, "--dir", t.TempDir(), "--dry-run"), run...)...); code != exitUsage || !strings.Contains(errs, "--dry-run") {
		t.Errorf("a search's dry run: exit %d %s", code, errs)
	}
}
