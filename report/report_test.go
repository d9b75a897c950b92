package report

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tpsbench/tpsbench/metrics"
	"github.com/tpsbench/tpsbench/record"
	"github.com/tpsbench/tpsbench/servermetrics"
)

var update = flag.Bool("update", false, "rewrite the golden files")

const milli = int64(time.Millisecond)

// fixture is a deterministic run: a sweep of three steps with known
// timings, a failure, a target, a trace replayed in the second step and
// reasoning in the last.
func fixture() *Report {
	targets := metrics.Targets{List: []metrics.Target{{Name: metrics.TargetTTFT, Want: 120}, {Name: metrics.TargetSystemTPS, Want: 100}}}
	steps := metrics.NewSteps(targets)
	t0 := int64(1_800_000_000_000_000_000)
	seq := 0
	for si, c := range []int{1, 4, 8} {
		base := int64(si) * 10_000 * milli
		for i := 0; i < 2*c; i++ {
			sent := base + int64(i/c)*2000*milli + int64(i%c)*milli
			r := &record.Record{V: 1, Step: fmt.Sprintf("c=%d", c), StepIndex: si, Seq: seq, Model: "m", URL: "http://h/v1/chat/completions", API: "chat",
				Stream: true, Concurrency: c, T0: t0, Scheduled: sent, Sent: sent, TokenSource: record.SourceUsage, PromptTokens: 5}
			ttft := int64(100+10*c+i) * milli
			for k := 0; k < 20; k++ {
				r.Chunks = append(r.Chunks, record.Chunk{At: ttft + int64(k)*int64(20+c)*milli, Tokens: 1})
			}
			r.OutputTokens, r.UsageTokens = 20, 20
			if c == 8 && i%2 == 0 { // a reasoning model's step
				for k := 0; k < 5; k++ {
					r.Chunks[k].Kind = record.ChunkReasoning
				}
				r.ReasoningTokens = 5
			}
			if c == 4 && i > 0 { // a prompt the server's cache held most of
				r.CachedTokens = 4
			}
			if c == 4 { // a replayed trace's step
				r.Trace = &record.TraceRef{Line: i + 1, Offset: sent - base, InputTokens: 5 + i%2, OutputTokens: 20, ReusedTokens: 2 * (i % 2)}
			}
			if c == 8 && i == 6 {
				r.Chunks[19].Kind = record.ChunkToolCall
				r.ToolCallTokens = 1
			}
			r.First, r.Last = sent+r.Chunks[0].At, sent+r.Chunks[19].At
			r.Done = r.Last
			if c == 8 && i == 3 {
				r.Chunks, r.OutputTokens, r.First, r.Last = nil, 0, 0, 0
				r.Fail(record.KindTimeout, "slow")
			}
			steps.Add(r)
			seq++
		}
	}
	return New("test", steps.Summaries())
}

func TestGolden(t *testing.T) {
	r := fixture()
	for _, format := range []string{"text", "json", "csv", "markdown"} {
		t.Run(format, func(t *testing.T) {
			var buf bytes.Buffer
			if err := Render(&buf, format, r); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join("testdata", "golden."+format)
			if *update {
				os.MkdirAll("testdata", 0o755)
				if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test ./report -update to create it)", err)
			}
			if !bytes.Equal(buf.Bytes(), want) {
				t.Errorf("%s output differs from %s (go test ./report -update rewrites it):\n%s", format, path, buf.String())
			}
		})
	}
}

// TestJSONRoundTrip: the JSON report decodes back to the same figures.
func TestJSONRoundTrip(t *testing.T) {
	r := fixture()
	var buf bytes.Buffer
	if err := Render(&buf, "json", r); err != nil {
		t.Fatal(err)
	}
	var back Report
	if err := json.Unmarshal(buf.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	var again bytes.Buffer
	if err := Render(&again, "json", &back); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf.Bytes(), again.Bytes()) {
		t.Error("JSON report does not survive a round trip")
	}
}

// TestHTMLInBrowser renders the report in headless Chromium and checks what
// was drawn: no script errors, every chart inked, and the summary table's
// values equal to the JSON report's. The screenshot is kept as an artifact.
func TestHTMLInBrowser(t *testing.T) {
	chromium, err := exec.LookPath("chromium")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("chromium is not installed (the test command installs it)")
		}
		t.Skip("chromium is not installed")
	}
	r := fixture()
	dir := t.TempDir()
	page := filepath.Join(dir, "report.html")
	var buf bytes.Buffer
	if err := HTML(&buf, r); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(page, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(buf.String(), "http://") && regexp.MustCompile(`<script[^>]+src=`).MatchString(buf.String()) {
		t.Error("the page loads a script from elsewhere")
	}
	args := []string{"--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
		"--disable-component-update", "--disable-sync", "--user-data-dir=" + filepath.Join(dir, "profile"), "--virtual-time-budget=5000"}
	out, err := exec.Command(chromium, append(args, "--window-size=1400,3600", "--dump-dom", "file://"+page)...).Output()
	if err != nil {
		t.Fatalf("chromium: %v", err)
	}
	m := regexp.MustCompile(`<pre id="selfcheck"[^>]*>([^<]*)</pre>`).FindSubmatch(out)
	if m == nil {
		t.Fatalf("no self-check in the rendered page")
	}
	var check struct {
		Errors       []string       `json:"errors"`
		Charts       map[string]int `json:"charts"`
		Placeholders *int           `json:"placeholders"`
		Scales       map[string]struct {
			Width      float64
			YMin, YMax float64
			LogX       bool
		} `json:"scales"`
	}
	if err := json.Unmarshal([]byte(strings.ReplaceAll(string(m[1]), "&quot;", `"`)), &check); err != nil {
		t.Fatalf("self-check %q: %v", m[1], err)
	}
	if len(check.Errors) > 0 {
		t.Errorf("script errors: %v", check.Errors)
	}
	switch {
	case check.Placeholders == nil:
		t.Error("the self-check counted no legend values")
	case *check.Placeholders != 0:
		t.Errorf("%d legend values shown in a page at rest (uPlot's \"--\" placeholders)", *check.Placeholders)
	}
	for _, id := range []string{"sweep", "latency", "pareto", "cdf-ttft_ms", "cdf-tpot_ms", "cdf-itl_ms", "cdf-e2e_ms", "cdf-request_tps", "rolling"} {
		if check.Charts[id] == 0 {
			t.Errorf("chart %s not drawn (%v)", id, check.Charts)
		}
		// drawn as wide as the window (charts were a fixed 900 px), rates
		// from 0 (an auto-scaled axis drew a flat 47.1 as a zig-zag),
		// shares from 0 to 1 (one-point CDFs had an axis of 0 to 2)
		sc := check.Scales[id]
		if sc.Width < 1200 {
			t.Errorf("chart %s is %v px wide in a 1400 px window", id, sc.Width)
		}
		switch {
		case strings.HasPrefix(id, "cdf-") && (sc.YMin != 0 || sc.YMax != 1):
			t.Errorf("CDF %s: share axis %v to %v", id, sc.YMin, sc.YMax)
		case (id == "sweep" || id == "rolling" || id == "latency" || id == "pareto") && sc.YMin != 0:
			t.Errorf("chart %s: axis from %v, not 0", id, sc.YMin)
		}
	}
	tableMatchesJSON(t, out, r)
	shot := filepath.Join("..", ".artifacts", "report.png")
	os.MkdirAll(filepath.Dir(shot), 0o755)
	abs, _ := filepath.Abs(shot)
	if err := exec.Command(chromium, append(args, "--window-size=1400,3600", "--screenshot="+abs, "file://"+page)...).Run(); err != nil {
		t.Errorf("screenshot: %v", err)
	} else {
		t.Logf("screenshot: %s", abs)
	}
}

// TestHTMLSizeBounded: a one-hour run of 100,000 requests still gives a
// small page, because series are downsampled and CDFs have fixed points.
func TestHTMLSizeBounded(t *testing.T) {
	steps := metrics.NewSteps(metrics.Targets{})
	for i := 0; i < 100_000; i++ {
		sent := int64(i) * 36 * milli
		r := &record.Record{V: 1, Step: "s", Stream: true, Concurrency: 64, Sent: sent, Scheduled: sent, TokenSource: record.SourceUsage}
		for k := 0; k < 10; k++ {
			r.Chunks = append(r.Chunks, record.Chunk{At: int64(50+k*20+i%7) * milli, Tokens: 1})
		}
		r.OutputTokens = 10
		r.First, r.Last = sent+r.Chunks[0].At, sent+r.Chunks[9].At
		r.Done = r.Last
		if i%97 == 0 {
			r.Fail(record.KindHTTPStatus, "503")
		}
		steps.Add(r)
	}
	var buf bytes.Buffer
	if err := HTML(&buf, New("test", steps.Summaries())); err != nil {
		t.Fatal(err)
	}
	if buf.Len() > 2<<20 {
		t.Errorf("page of %d bytes for 100,000 requests, want under 2 MB", buf.Len())
	}
	t.Logf("page: %d bytes", buf.Len())
}

func TestLTTB(t *testing.T) {
	var xs, ys []float64
	for i := 0; i < 10000; i++ {
		xs, ys = append(xs, float64(i)), append(ys, float64(i%100))
	}
	ys[5000] = 1e6 // a spike must survive
	ox, oy := lttb(xs, ys, 500)
	if len(ox) != 500 || ox[0] != 0 || ox[499] != 9999 {
		t.Fatalf("%d points from %v to %v", len(ox), ox[0], ox[len(ox)-1])
	}
	found := false
	for _, v := range oy {
		found = found || v == 1e6
	}
	if !found {
		t.Error("the spike was dropped")
	}
}

// TestTextFormatsCarryNoEscapes: a model name, step and failure kind with
// terminal escapes (a records file from a proxy holds whatever clients
// sent) reach text, markdown and CSV with their control characters
// replaced, and JSON escaped.
func TestTextFormatsCarryNoEscapes(t *testing.T) {
	steps := metrics.NewSteps(metrics.Targets{})
	for i := range 3 {
		r := &record.Record{V: 1, Step: "s\x1b[2J", Model: "m\x1b]0;title\x07", Stream: true, Sent: 0, TokenSource: record.SourceUsage,
			Chunks: []record.Chunk{{At: 10 * milli, Tokens: 1}, {At: 20 * milli, Tokens: 1}}, OutputTokens: 2}
		r.First, r.Last, r.Done = 10*milli, 20*milli, 20*milli
		if i == 2 {
			r.Fail("kind\x1b[31m", "x")
		}
		steps.Add(r)
	}
	rep := New("test", steps.Summaries())
	for _, format := range []string{"text", "markdown", "csv", "json"} {
		var buf bytes.Buffer
		if err := Render(&buf, format, rep); err != nil {
			t.Fatal(err)
		}
		if bytes.ContainsAny(buf.Bytes(), "\x1b\x07") {
			t.Errorf("%s: control characters passed:\n%q", format, buf.String())
		}
		if !strings.Contains(buf.String(), "title") {
			t.Errorf("%s: the model's name is gone:\n%s", format, buf.String())
		}
	}
}

// TestSweepAxis: a sweep's charts run against what its steps differ in.
func TestSweepAxis(t *testing.T) {
	conc := []metrics.Summary{{Concurrency: 1}, {Concurrency: 4}}
	// as an automatic sweep runs them: the throughput step before the rates
	rate := []metrics.Summary{{Concurrency: 1, RequestThroughput: 0.9}, {Concurrency: 8, RequestThroughput: 3.5}, {Concurrency: 8, Rate: 2, RequestThroughput: 1.9}}
	same := []metrics.Summary{{Concurrency: 2, Rate: 1}, {Concurrency: 2, Rate: 1}}
	for _, tc := range []struct {
		name  string
		steps []metrics.Summary
		label string // the sweep chart's x label, "" for none
	}{{"concurrency", conc, "concurrency"}, {"rate", rate, "requests/s completed"}, {"same", same, ""}, {"one", conc[:1], ""}} {
		label := ""
		for _, c := range charts(tc.steps) {
			if c.ID == "sweep" {
				label = c.XLabel
				if want := []float64{0.9, 1.9, 3.5}; tc.name == "rate" && !slices.Equal(c.X, want) {
					t.Errorf("rate sweep x %v, want %v (ascending, as uPlot draws)", c.X, want)
				}
			}
		}
		if label != tc.label {
			t.Errorf("%s: sweep chart against %q, want %q", tc.name, label, tc.label)
		}
	}
}

// TestReasoningInText: a single request and a batch of a reasoning model
// say how much was reasoning and when the answer began.
func TestReasoningInText(t *testing.T) {
	mk := func(seq int) *record.Record {
		r := &record.Record{V: 3, Seq: seq, Model: "m", API: "chat", Stream: true, Sent: 0, TokenSource: record.SourceUsage}
		for k := 0; k < 10; k++ {
			c := record.Chunk{At: int64(100+10*k) * milli, Tokens: 1}
			if k < 4 {
				c.Kind = record.ChunkReasoning
			}
			r.Chunks = append(r.Chunks, c)
		}
		r.OutputTokens, r.UsageTokens, r.ReasoningTokens = 10, 10, 4
		r.First, r.Last, r.Done = r.Chunks[0].At, r.Chunks[9].At, r.Chunks[9].At
		return r
	}
	for _, c := range []struct {
		n    int
		want []string
	}{
		{1, []string{"Reasoning: 4 of 10 tokens, the first after 100 ms, at 100.00 tokens/s", "Answer: 6 tokens, the first after 140 ms, at 100.00 tokens/s"}},
		{3, []string{"First reasoning", "First answer", "Reasoning: 12 of 30 tokens (40.0%) in 3 requests; answer 18 tokens", "Answer TPS per request: mean 100.00"}},
	} {
		steps := metrics.NewSteps(metrics.Targets{})
		for i := 0; i < c.n; i++ {
			steps.Add(mk(i))
		}
		var buf bytes.Buffer
		if err := Text(&buf, New("test", steps.Summaries())); err != nil {
			t.Fatal(err)
		}
		for _, w := range c.want {
			if !strings.Contains(buf.String(), w) {
				t.Errorf("%d requests: report lacks %q:\n%s", c.n, w, buf.String())
			}
		}
	}
}

// TestServerViewInText: the server's engine steps, and the tokens each
// generated, are reported when its metrics have them, and not otherwise.
func TestServerViewInText(t *testing.T) {
	steps := metrics.NewSteps(metrics.Targets{})
	steps.Add(&record.Record{V: 3, Model: "m", API: "completions", Stream: true, OutputTokens: 1, First: 10 * milli, Last: 10 * milli, Done: 10 * milli,
		Chunks: []record.Chunk{{At: 10 * milli, Tokens: 1}}})
	sums := steps.Summaries()
	for _, c := range []struct {
		view         servermetrics.View
		want, absent string
	}{
		{servermetrics.View{Scrapes: 2, Counted: true, GenerationTokens: 640, EngineSteps: 20, StepTokensMean: 40, GeneratedPerStep: 32},
			"20 engine steps generating 32.0 tokens each on average (40.0 tokens a step through the model, prompts included)", ""},
		{servermetrics.View{Scrapes: 2, Counted: true, GenerationTokens: 640, EngineSteps: 20, GeneratedPerStep: 32}, // no sum
			"20 engine steps generating 32.0 tokens each on average", "a step through the model"},
		{servermetrics.View{Scrapes: 2, Counted: true, GenerationTokens: 640}, "", "engine steps"},
		{servermetrics.View{Scrapes: 2, Reset: "vllm:generation_tokens_total"}, // a restart between scrapes
			"vllm:generation_tokens_total fell during the step", "no token counts"},
	} {
		sums[0].Server = &c.view
		var buf bytes.Buffer
		if err := Text(&buf, New("test", sums)); err != nil {
			t.Fatal(err)
		}
		if got := buf.String(); !strings.Contains(got, c.want) || (c.absent != "" && strings.Contains(got, c.absent)) {
			t.Errorf("view %+v: report:\n%s\nwant %q and not %q", c.view, got, c.want, c.absent)
		}
	}
}

// TestHTMLNotes: the HTML report notes what the text report does (failures,
// token sources, reasoning, a replay's faithfulness), escaped.
func TestHTMLNotes(t *testing.T) {
	var buf bytes.Buffer
	if err := HTML(&buf, fixture()); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	i := strings.Index(page, `<ul id="notes">`)
	if i < 0 {
		t.Fatal("no notes in the page")
	}
	notes := page[i:]
	notes = notes[:strings.Index(notes, "</ul>")]
	// a list of notes, not a monospace wall; a failure's reason an item
	// under its note
	for _, want := range []string{"<li>c=8: Failures (kept out of latency and TPS figures): timeout 1</li>", "<li>c=4: Replay of a trace, 8 requests",
		"<li>c=8: Reasoning: 40 of 300 tokens", `<li class="sub">1 timeout: slow</li>`} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes lack %q:\n%s", want, notes)
		}
	}
}

// TestHTMLCompareRatios: compare's page has the ratio table that its
// text, Markdown and JSON have.
func TestHTMLCompareRatios(t *testing.T) {
	r := fixture()
	r.Compare = true
	var buf bytes.Buffer
	if err := HTML(&buf, r); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	i := strings.Index(page, `<table id="ratios">`)
	if i < 0 {
		t.Fatal("no ratio table")
	}
	table := page[i : i+strings.Index(page[i:], "</table>")]
	want := fmt.Sprintf("%.2fx", r.Steps[1].SystemTPS/r.Steps[0].SystemTPS)
	if strings.Count(table, "<tr>") != len(r.Steps)+1 || !strings.Contains(table, want) {
		t.Errorf("ratio table lacks %s:\n%s", want, table)
	}
}

// TestPerRequestRatesExplained: the two per-request rates a batch report
// gives (74.27 and 59.79 on screen, with no word on why) say what each is
// when they differ.
func TestPerRequestRatesExplained(t *testing.T) {
	s := metrics.Summary{Label: "s", Requests: metrics.Requests{Completed: 10}, SystemTPS: 597.9, AchievedConcurrency: 10, PerRequestTPS: 59.79,
		RequestTPS: metrics.Dist{Count: 10, Mean: 74.27}}
	var buf bytes.Buffer
	if err := Text(&buf, New("test", []metrics.Summary{s})); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "59.79 tokens/s: all tokens over all requests' time, where per-request TPS is the mean of each request's own rate)") {
		t.Errorf("report:\n%s", buf.String())
	}
	s.PerRequestTPS = 74.27
	buf.Reset()
	Text(&buf, New("test", []metrics.Summary{s}))
	if strings.Contains(buf.String(), "own rate") {
		t.Errorf("explained when equal:\n%s", buf.String())
	}
}

// TestGoodputAndTotalInText: goodput and the prompt-and-output rate were
// in JSON and CSV only.
func TestGoodputAndTotalInText(t *testing.T) {
	s := metrics.Summary{Label: "s", Requests: metrics.Requests{Completed: 8, Failed: 2}, SystemTPS: 100, TotalTPS: 350, InputTokens: 2500,
		Goodput: &metrics.Goodput{Requests: 6, RequestThroughput: 1.5, TPS: 75}}
	var buf bytes.Buffer
	if err := Text(&buf, New("test", []metrics.Summary{s})); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"System TPS: 100.00 tokens/s (prompt and output tokens together: 350.00 tokens/s)",
		"Goodput: 6 of 10 requests met every per-request target (1.500 requests/s, 75.00 tokens/s)"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("no %q in:\n%s", want, buf.String())
		}
	}
}

// TestArrivalsNotedWhenTheyMatter: 3 chunks of 100 read together is the
// machine's scheduling, noted on every engine run in 170 characters; a
// fifth of them is a server that batches.
func TestArrivalsNotedWhenTheyMatter(t *testing.T) {
	for _, c := range []struct {
		batched int64
		noted   bool
	}{{3, false}, {20, true}} {
		s := metrics.Summary{Label: "s", Requests: metrics.Requests{Completed: 1, Failed: 1}, Chunks: 100, BatchedChunks: c.batched}
		var buf bytes.Buffer
		if err := Text(&buf, New("test", []metrics.Summary{s})); err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(buf.String(), "Arrivals: "); got != c.noted {
			t.Errorf("%d of 100 chunks batched: noted %v, want %v\n%s", c.batched, got, c.noted, buf.String())
		}
	}
}

// TestLateBatchesWarned: chunks read together while the client was late
// starting requests are warned of from one in 2,000 chunks.
func TestLateBatchesWarned(t *testing.T) {
	for _, c := range []struct {
		late   int64
		warned bool
	}{{0, false}, {4, false}, {5, true}} {
		s := metrics.Summary{Label: "s", Requests: metrics.Requests{Completed: 1}, Chunks: 10000, BatchedChunks: 10, BatchedWhileLate: c.late}
		var buf bytes.Buffer
		if err := Text(&buf, New("test", []metrics.Summary{s})); err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(buf.String(), "while the client was late starting requests"); got != c.warned {
			t.Errorf("%d of 10,000 chunks batched while late: warned %v, want %v\n%s", c.late, got, c.warned, buf.String())
		}
	}
}

// TestSingleRequestPage: a single request's page opens with its stream
// (it opened with five CDFs of one point each, the stream last), and a
// latency CDF with a tail far past its body is drawn on a log axis (one
// 450 ms ITL squeezed 20 ms ones into the left edge).
func TestSingleRequestPage(t *testing.T) {
	acc := metrics.NewAccumulator(metrics.Targets{})
	r := &record.Record{V: 3, Model: "m", Stream: true, Sent: 0}
	at := int64(0)
	for i := 0; i < 51; i++ {
		at += 20 * milli
		if i == 50 {
			at += 430 * milli
		}
		r.Chunks = append(r.Chunks, record.Chunk{At: at, Tokens: 1})
	}
	r.First, r.Last, r.Done, r.OutputTokens = r.Chunks[0].At, at, at, 51
	acc.Add(r)
	cs := charts([]metrics.Summary{acc.Summary()})
	if len(cs) == 0 || cs[0].ID != "stream" {
		t.Fatalf("charts %v: want the stream first", chartIDs(cs))
	}
	for _, c := range cs {
		if c.ID == "cdf-ttft_ms" || c.ID == "cdf-e2e_ms" || c.ID == "cdf-request_tps" {
			t.Errorf("a one-sample CDF drawn: %s", c.ID)
		}
		if c.ID == "cdf-itl_ms" && !c.LogX {
			t.Errorf("ITL CDF with a 450 ms tail over 20 ms gaps on a linear axis")
		}
	}
}

func chartIDs(cs []chart) []string {
	var ids []string
	for _, c := range cs {
		ids = append(ids, c.ID)
	}
	return ids
}

// TestViewsNameColumns: every figure a summary or ratio table shows is a
// column of the figure table (a view's name that matches none would drop
// it from the table unseen), and each column's name is its own.
func TestViewsNameColumns(t *testing.T) {
	names := map[string]bool{}
	for _, c := range columns() {
		if names[c.name] {
			t.Errorf("column %s twice", c.name)
		}
		names[c.name] = true
		if (c.num == nil) == (c.text == nil) {
			t.Errorf("column %s: want a number or a text", c.name)
		}
	}
	for _, v := range []view{summaryViewWide, outputlessViewWide, ratioView, outputlessRatioView} {
		for _, e := range v {
			if !names[e.name] {
				t.Errorf("view entry %q (%s) is no column", e.name, e.heading)
			}
		}
		if len(v.resolve()) != len(v) {
			t.Errorf("a view of %d entries resolved to %d columns", len(v), len(v.resolve()))
		}
	}
}

// tableMatchesJSON holds the HTML summary table's exact values (its cells'
// data-value) to the JSON report's, and each figure compared to be there.
func tableMatchesJSON(t *testing.T, out []byte, r *Report) {
	t.Helper()
	want := map[string]map[string]float64{}
	for _, s := range r.Steps {
		want[s.Label] = map[string]float64{"system_tps": s.SystemTPS, "ttft_ms_p99": s.TTFT.P99, "tpot_ms_p50": s.TPOT.P50, "failed": float64(s.Requests.Failed), "request_tps_mean": s.RequestTPS.Mean}
	}
	rows := regexp.MustCompile(`<tr data-step="([^"]+)">(.*?)</tr>`).FindAllSubmatch(out, -1)
	if len(rows) != len(r.Steps) {
		t.Fatalf("%d table rows, want %d", len(rows), len(r.Steps))
	}
	for _, row := range rows {
		label := string(row[1])
		compared := 0
		for _, c := range regexp.MustCompile(`data-key="([^"]+)" data-value="([^"]+)"`).FindAllSubmatch(row[2], -1) {
			key := string(c[1])
			w, ok := want[label][key]
			if !ok {
				continue
			}
			compared++
			got, _ := strconv.ParseFloat(string(c[2]), 64)
			if got != w {
				t.Errorf("%s %s: table %v, JSON %v", label, key, got, w)
			}
		}
		if compared != len(want[label]) {
			t.Errorf("%s: %d of the %d figures compared are in the table", label, compared, len(want[label]))
		}
	}
}

// TestTokenizerShortSaid: a step whose tokenizer counted fewer tokens
// than chunks carried them says the chunks' count was used, and in how
// many requests.
func TestTokenizerShortSaid(t *testing.T) {
	s := metrics.Summary{Label: "s", Requests: metrics.Requests{Completed: 2}, TokenSources: map[string]int{record.SourceChunks: 1, record.SourceTokenizer: 1},
		TokenizerShort: 1}
	var buf bytes.Buffer
	if err := Text(&buf, New("test", []metrics.Summary{s})); err != nil {
		t.Fatal(err)
	}
	if want := "in 1 request the tokenizer counted fewer tokens than chunks carried them, each at least one: the chunks' count was used"; !strings.Contains(buf.String(), want) {
		t.Errorf("no %q in:\n%s", want, buf.String())
	}
}

// TestSweepLinePerTarget: two models over concurrency 1 and 2 are two
// lines each figure, each through its own model's levels only (one line
// through every step joined model a at c=2 back to model b at c=1).
func TestSweepLinePerTarget(t *testing.T) {
	step := func(model string, c int, tps float64) metrics.Summary {
		return metrics.Summary{Label: fmt.Sprintf("%s c=%d", model, c), Model: model, URL: "http://h", Concurrency: c, SystemTPS: tps,
			RequestTPS: metrics.Dist{Mean: tps / float64(c)}, Requests: metrics.Requests{Completed: 4}}
	}
	steps := []metrics.Summary{step("a", 1, 10), step("a", 2, 18), step("b", 1, 30), step("b", 2, 50)}
	var sweep chart
	for _, c := range charts(steps) {
		if c.ID == "sweep" {
			sweep = c
		}
	}
	if !slices.Equal(sweep.X, []float64{1, 2}) {
		t.Fatalf("x %v, want the levels 1 and 2 once each", sweep.X)
	}
	want := map[string][]float64{"system TPS (a)": {10, 18}, "system TPS (b)": {30, 50}, "per-request TPS (a)": {10, 9}, "per-request TPS (b)": {30, 25}}
	for _, s := range sweep.Series {
		w, ok := want[s.Label]
		if !ok {
			t.Errorf("a series %q", s.Label)
			continue
		}
		for i, y := range s.Y {
			if y == nil || *y != w[i] {
				t.Errorf("%s at c=%v: %v, want %v", s.Label, sweep.X[i], y, w[i])
			}
		}
		delete(want, s.Label)
	}
	if len(want) > 0 {
		t.Errorf("no series %v", want)
	}
}

// TestRepeatsOneFormat: figures across runs are written as the tables
// write them, two decimals whatever the value, and the error rate as a
// percent (172 and 172.50 stood side by side).
func TestRepeatsOneFormat(t *testing.T) {
	r := New("test", []metrics.Summary{{Label: "s", Requests: metrics.Requests{Completed: 1}}})
	r.Repeats = []metrics.Repeat{{Label: "s", Runs: 3, Figures: map[string]metrics.Interval{
		"system_tps": {Mean: 172, Low: 171.5, High: 172.5}, "error_rate": {Mean: 0.02, Low: 0, High: 0.05}}}}
	var buf bytes.Buffer
	if err := Text(&buf, r); err != nil {
		t.Fatal(err)
	}
	if want := "system TPS 172.00 [171.50, 172.50]; error rate 2.0% [0.0%, 5.0%]"; !strings.Contains(buf.String(), want) {
		t.Errorf("no %q in:\n%s", want, buf.String())
	}
}

// TestHTTPPhasesReported: a step's HTTP phases are a table in HTML, and
// in text with TraceTiming, a row a phase by k6's name; without any
// (the engine in process) text says why there is none.
func TestHTTPPhasesReported(t *testing.T) {
	r := fixture()
	r.Steps = r.Steps[:1]
	d := func(ms float64) metrics.Dist {
		return metrics.Dist{Count: 4, Mean: ms, P50: ms, P90: ms, P99: ms, Max: ms}
	}
	r.Steps[0].HTTP = &metrics.HTTPPhases{Requests: 4, Reused: 3, TLS: d(2.5), Waiting: d(41), Duration: d(90)}
	var page bytes.Buffer
	if err := HTML(&page, r); err != nil {
		t.Fatal(err)
	}
	i := strings.Index(page.String(), `<table id="http-phases">`)
	if i < 0 {
		t.Fatal("no HTTP phases table")
	}
	table := page.String()[i:]
	table = table[:strings.Index(table, "</table>")]
	if strings.Count(table, "<tr>") != 9 || !strings.Contains(table, "<td>http_req_tls_handshaking</td><td>2.50 ms</td>") || !strings.Contains(table, "<td>3 (75%)</td>") {
		t.Errorf("HTTP phases table:\n%s", table)
	}

	r.TraceTiming = true
	var text bytes.Buffer
	if err := Text(&text, r); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"HTTP phases (k6's http_req_*), 4 requests, 3 on a reused connection (75%):", "tls_handshaking", "41.00 ms"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, text.String())
		}
	}
	r.Steps[0].HTTP = nil
	text.Reset()
	if err := Text(&text, r); err != nil || !strings.Contains(text.String(), "No HTTP phases") {
		t.Errorf("%v:\n%s", err, text.String())
	}
}
