package e2e_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"runtime"
	"sort"
	"testing"
	"time"

	"github.com/tpsbench/tpsbench"
	"github.com/tpsbench/tpsbench/client"
	"github.com/tpsbench/tpsbench/internal/procmem"
	"github.com/tpsbench/tpsbench/internal/scripted"
	"github.com/tpsbench/tpsbench/load"
	"github.com/tpsbench/tpsbench/metrics"
	"github.com/tpsbench/tpsbench/record"
	"github.com/tpsbench/tpsbench/workload"
)

// Every bound in these tests comes from the ground-truth server's own log,
// never from an absolute duration: the tests run under the race detector
// on 2 shared cores beside other packages' tests, where a goroutine can
// wait 100 ms and more for a core. The server logs each event just before
// writing it, so causality holds exactly (both sides read this process's
// monotonic clock): no chunk arrives before its event was sent. How late
// chunks arrive depends on the machine's load; each response's largest
// delay is measured, and figures must agree with the same figures computed
// from the server's log within what those measured delays allow. The
// client's accuracy on a quiet machine is bench/client.sh's to measure.

type run struct {
	clock *record.Clock
	srv   *scripted.Server
	res   *tpsbench.Result
	recs  []*record.Record
}

func measure(t *testing.T, sc scripted.Script, stream bool, prof load.Profile, maxTokens int, levels ...int) run {
	t.Helper()
	srv := scripted.New(sc)
	t.Cleanup(srv.Close)
	clock := record.NewClock()
	var plan tpsbench.Plan
	plan.Clock = clock
	profiles := []load.Profile{prof}
	if len(levels) > 0 { // a sweep of users, a batch each unless counted
		profiles = nil
		for _, c := range levels {
			p := prof
			p.Shape = load.Users{Count: c}
			if p.Requests == 0 && p.Duration == 0 {
				p.Requests = c
			}
			profiles = append(profiles, p)
		}
	}
	for _, p := range profiles {
		cl, err := client.NewHTTP(client.HTTPConfig{URL: srv.URL, Stream: stream, Concurrency: max(p.Limit(), 1), Clock: clock, Timeout: 30 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(cl.Close)
		plan.Steps = append(plan.Steps, tpsbench.Step{Label: p.Shape.String(), Model: "m", Client: cl, Profile: p,
			Workload: workload.Fixed{Prompt: "Explain AI", MaxTokens: maxTokens}})
	}
	var recs []*record.Record
	plan.Observer = tpsbench.ObserverFuncs{OnDone: func(r *record.Record) { recs = append(recs, r) }}
	res, err := tpsbench.Run(context.Background(), plan)
	if err != nil {
		t.Fatal(err)
	}
	return run{clock: clock, srv: srv, res: res, recs: recs}
}

// checkTiming checks every chunk against the server's log (the same
// events, the same tokens, none before it was sent), and returns each
// response's largest delay.
func checkTiming(t *testing.T, r run, clock func(*record.Record, int64) time.Time) map[string]time.Duration {
	t.Helper()
	worst := map[string]time.Duration{}
	for _, rec := range r.recs {
		if rec.Error != nil {
			t.Fatalf("request failed: %v", rec.Error)
		}
		log, ok := r.srv.Log(rec.ResponseID)
		if !ok {
			t.Fatalf("no server log for %q", rec.ResponseID)
		}
		if len(log.Events) != len(rec.Chunks) {
			t.Fatalf("server sent %d events, client saw %d chunks", len(log.Events), len(rec.Chunks))
		}
		for i, c := range rec.Chunks {
			if c.Tokens != log.Tokens[i] {
				t.Fatalf("chunk %d: client counts %d tokens, server sent %d", i, c.Tokens, log.Tokens[i])
			}
			arrived := clock(rec, rec.Sent+c.At)
			d := arrived.Sub(log.Events[i])
			if d < 0 {
				t.Fatalf("chunk %d arrived %v before the server sent it", i, -d)
			}
			worst[rec.ResponseID] = max(worst[rec.ResponseID], d)
		}
		if sent := clock(rec, rec.Sent); sent.After(log.Received) {
			t.Fatalf("request marked sent %v after the server had read it", sent.Sub(log.Received))
		}
	}
	return worst
}

// medianWithin checks that the median of samples lies where the medians
// of their lower and upper bounds put it: when every sample x_i lies in
// [lo_i, hi_i], median(x) lies in [median(lo), median(hi)]. got is an HDR
// histogram's median (3 significant digits), hence the 0.2% slack.
func medianWithin(t *testing.T, name string, got float64, lo, hi []float64) {
	t.Helper()
	sort.Float64s(lo)
	sort.Float64s(hi)
	n := len(lo)
	low, high := lo[(n-1)/2], hi[n/2]
	if got < low-0.002*math.Abs(low)-1e-9 || got > high+0.002*math.Abs(high)+1e-9 {
		t.Errorf("%s median %.4f, outside [%.4f, %.4f] from the server's log and the measured delays", name, got, low, high)
	}
}

// gapBounds gives, for every token after the first of every response, the
// range its ITL (ms) must lie in: the server's gap between the two events,
// give or take the response's largest measured delay, over the event's
// tokens. perToken false gives one range per chunk gap instead.
func gapBounds(r run, delay map[string]time.Duration, perToken bool) (lo, hi []float64) {
	for _, rec := range r.recs {
		log, _ := r.srv.Log(rec.ResponseID)
		d := float64(delay[rec.ResponseID]) / 1e6
		for i := 1; i < len(log.Events); i++ {
			g := float64(log.Events[i].Sub(log.Events[i-1])) / 1e6
			k := 1
			if perToken {
				k = log.Tokens[i]
			}
			for j := 0; j < k; j++ {
				lo = append(lo, max(g-d, 0)/float64(k))
				hi = append(hi, (g+d)/float64(k))
			}
		}
	}
	return lo, hi
}

// serverFigures computes the mean TPOT (ms), output tokens and the window
// (first request read to last token written) from the server's own log.
func serverFigures(t *testing.T, r run) (tpot float64, tokens int, window time.Duration) {
	var sum float64
	var n int
	var start, end time.Time
	for _, rec := range r.recs {
		if rec.Warmup {
			continue
		}
		log, _ := r.srv.Log(rec.ResponseID)
		total := 0
		for _, k := range log.Tokens {
			total += k
		}
		tokens += total
		first, last := log.Events[0], log.Events[len(log.Events)-1]
		if total > 1 {
			sum += float64(last.Sub(first)) / float64(total-1) / 1e6
			n++
		}
		if start.IsZero() || log.Received.Before(start) {
			start = log.Received
		}
		if last.After(end) {
			end = last
		}
	}
	return sum / float64(n), tokens, end.Sub(start)
}

func within(t *testing.T, name string, got, want, tol float64) {
	t.Helper()
	if math.Abs(got-want) > tol*want {
		t.Errorf("%s = %.4f, want %.4f within %.0f%%", name, got, want, tol*100)
	}
}

func TestGroundTruth(t *testing.T) {
	cases := []struct {
		name      string
		sc        scripted.Script
		stream    bool
		prof      load.Profile
		maxTokens int
		source    string
	}{
		{"one request", scripted.Script{TTFT: 50 * time.Millisecond, Gap: 10 * time.Millisecond, RoleChunk: true, Usage: true, PromptTokens: 24}, true, load.Profile{Shape: load.Users{Count: 1}, Requests: 1}, 30, record.SourceUsage},
		{"64 concurrent streams", scripted.Script{TTFT: 30 * time.Millisecond, Gap: 10 * time.Millisecond, Usage: true, PromptTokens: 512}, true, load.Profile{Shape: load.Users{Count: 64}, Requests: 64}, 20, record.SourceUsage},
		{"multi-token chunks", scripted.Script{TTFT: 20 * time.Millisecond, Gap: 12 * time.Millisecond, PerEvent: 3, Usage: true}, true, load.Profile{Shape: load.Users{Count: 4}, Requests: 8}, 30, record.SourceUsage},
		{"continuous usage", scripted.Script{TTFT: 20 * time.Millisecond, Gap: 12 * time.Millisecond, PerEvent: 2, ContinuousUsage: true, Usage: true}, true, load.Profile{Shape: load.Users{Count: 2}, Requests: 4}, 20, record.SourceUsage},
		{"usage absent", scripted.Script{TTFT: 20 * time.Millisecond, Gap: 10 * time.Millisecond}, true, load.Profile{Shape: load.Users{Count: 8}, Requests: 16}, 20, record.SourceChunks},
		{"not streamed", scripted.Script{TTFT: 20 * time.Millisecond, Gap: 5 * time.Millisecond}, false, load.Profile{Shape: load.Users{Count: 2}, Requests: 4}, 20, record.SourceUsage},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := measure(t, c.sc, c.stream, c.prof, c.maxTokens)
			sum := r.res.Steps[0]
			if sum.Requests.Completed != c.prof.Requests || sum.Requests.Failed != 0 {
				t.Fatalf("requests %+v", sum.Requests)
			}
			if sum.OutputTokens != int64(c.prof.Requests*c.maxTokens) {
				t.Errorf("output tokens %d, want %d", sum.OutputTokens, c.prof.Requests*c.maxTokens)
			}
			if sum.TokenSources[c.source] != c.prof.Requests {
				t.Errorf("token sources %v, want all %s", sum.TokenSources, c.source)
			}
			delay := checkTiming(t, r, recordClock(r))
			_, tokens, window := serverFigures(t, r)
			if c.stream {
				// Each record's TPOT against the server's for that response:
				// they differ by (last chunk's delay - first's) / (n - 1), and
				// both delays lie between 0 and the response's largest.
				for _, rec := range r.recs {
					log, _ := r.srv.Log(rec.ResponseID)
					server := float64(log.Events[len(log.Events)-1].Sub(log.Events[0])) / float64(rec.OutputTokens-1)
					client, _ := rec.TPOT()
					if bound := float64(delay[rec.ResponseID]) / float64(rec.OutputTokens-1); math.Abs(float64(client)-server) > bound+1 {
						t.Errorf("%s: TPOT %v, server's %v, more than %v apart", rec.ResponseID, client, time.Duration(server), time.Duration(bound))
					}
				}
				// ITL per token: the event gap split over the event's tokens
				// (a per-chunk ITL would be PerEvent times larger), against
				// the server's own gaps.
				checkSecondTokenAndPrefill(t, r, delay, sum, c.sc.PromptTokens)
				lo, hi := gapBounds(r, delay, true)
				medianWithin(t, "ITL", sum.ITL.P50, lo, hi)
				lo, hi = gapBounds(r, delay, false)
				medianWithin(t, "inter-chunk", sum.InterChunk.P50, lo, hi)
			}
			// The client's window holds the server's (causality), and exceeds
			// it by the first request's transit to the server and the last
			// response's tail after its last event, both measured.
			var firstSent, lastDone time.Time
			var lastEvent time.Time
			for _, rec := range r.recs {
				if sent := r.clock.Time(rec.Sent); firstSent.IsZero() || sent.Before(firstSent) {
					firstSent = sent
				}
				if done := r.clock.Time(rec.Done); done.After(lastDone) {
					lastDone = done
				}
				log, _ := r.srv.Log(rec.ResponseID)
				if ev := log.Events[len(log.Events)-1]; ev.After(lastEvent) {
					lastEvent = ev
				}
			}
			transit := lastEvent.Sub(firstSent) - window // first request sent to first read by the server
			tail := lastDone.Sub(lastEvent)              // last event sent to the end of its response
			if transit < 0 || tail < 0 {
				t.Fatalf("transit %v, tail %v: the client's window starts after or ends before the server's", transit, tail)
			}
			hi := float64(tokens) / window.Seconds()
			lo := float64(tokens) / (window + transit + tail).Seconds()
			if sum.SystemTPS > hi*(1+1e-9) || sum.SystemTPS < lo*(1-1e-9) {
				t.Errorf("system TPS %.2f outside [%.2f, %.2f] from the server's log", sum.SystemTPS, lo, hi)
			}
			// TTFT against the server's own (from reading the request to its
			// first write): the client's is longer by the request's transit
			// and the first chunk's, never shorter.
			for _, rec := range r.recs {
				log, _ := r.srv.Log(rec.ResponseID)
				server := log.Events[0].Sub(log.Received)
				if rec.TTFT() < server {
					t.Errorf("%s: client TTFT %v below the server's %v", rec.ResponseID, rec.TTFT(), server)
				}
			}
			if nominal := float64(c.sc.TTFT)/1e6 + expectedTail(c.sc, c.stream, c.maxTokens); sum.TTFT.Min < nominal {
				t.Errorf("TTFT min %.3f ms below the script's %.3f ms", sum.TTFT.Min, nominal)
			}
		})
	}
}

// checkSecondTokenAndPrefill holds each record's TTST to the server's gap
// between its first two events, give or take the response's largest
// delay (AIPerf's second response - first response), and the step's
// prefill TPS to the prompt tokens the server reported over each TTFT,
// none where it reported none.
func checkSecondTokenAndPrefill(t *testing.T, r run, delay map[string]time.Duration, sum metrics.Summary, promptTokens int) {
	t.Helper()
	for _, rec := range r.recs {
		log, _ := r.srv.Log(rec.ResponseID)
		server := log.Events[1].Sub(log.Events[0])
		client, ok := rec.TTST()
		if d := delay[rec.ResponseID]; !ok || client < server-d || client > server+d {
			t.Errorf("%s: TTST %v (%v), server's %v, more than %v apart", rec.ResponseID, client, ok, server, d)
		}
	}
	var prefill float64
	for _, rec := range r.recs {
		if rec.PromptTokens != promptTokens {
			t.Fatalf("%d prompt tokens, the server's %d", rec.PromptTokens, promptTokens)
		}
		prefill += float64(rec.PromptTokens) / rec.TTFT().Seconds() / float64(len(r.recs))
	}
	want := int64(len(r.recs))
	if promptTokens == 0 {
		want = 0
	}
	if sum.PrefillTPS.Count != want || math.Abs(sum.PrefillTPS.Mean-prefill) > 1e-9*prefill {
		t.Errorf("prefill TPS %+v, want the mean of prompt tokens over TTFT, %v, from %d requests", sum.PrefillTPS, prefill, want)
	}
}

// expectedTail is the part of the first token's wait beyond the script's
// TTFT: a non-streamed response arrives only when all tokens are made.
func expectedTail(sc scripted.Script, stream bool, n int) float64 {
	if stream {
		return 0
	}
	return float64(time.Duration(n-1)*sc.Gap) / 1e6
}

// recordClock maps a record offset back to a monotonic time of the run's
// clock, comparable with the server's log in the same process.
func recordClock(r run) func(*record.Record, int64) time.Time {
	return func(_ *record.Record, off int64) time.Time { return r.clock.Time(off) }
}

func TestSweepGroundTruth(t *testing.T) {
	sc := scripted.Script{TTFT: 20 * time.Millisecond, Gap: 10 * time.Millisecond, Usage: true}
	r := measure(t, sc, true, load.Profile{Warmup: 1}, 20, 1, 4, 16)
	if len(r.res.Steps) != 3 {
		t.Fatalf("%d steps", len(r.res.Steps))
	}
	checkTiming(t, r, recordClock(r))
	for i, c := range []int{1, 4, 16} {
		s := r.res.Steps[i]
		if s.Concurrency != c || s.Requests.Completed != c || s.Warmup != 1 {
			t.Errorf("step %d: concurrency %d completed %d warmup %d", i, s.Concurrency, s.Requests.Completed, s.Warmup)
		}
		// The server makes each stream at the same pace whatever the
		// concurrency, so system TPS grows with it and request TPS holds
		// (within 20%: request transit on a loaded machine adds to E2E).
		perReq := 20 / (0.020 + 19*0.010)
		within(t, fmt.Sprintf("c=%d request TPS", c), s.RequestTPS.Mean, perReq, 0.2)
		within(t, fmt.Sprintf("c=%d system TPS", c), s.SystemTPS, perReq*float64(c), 0.2)
	}
}

func TestRateRunAchievesRate(t *testing.T) {
	sc := scripted.Script{TTFT: 5 * time.Millisecond, Gap: 5 * time.Millisecond, Usage: true}
	r := measure(t, sc, true, load.Profile{Shape: load.Rate{PerSecond: 100}, Requests: 200}, 10)
	s := r.res.Steps[0]
	if s.Requests.Completed != 200 {
		t.Fatalf("completed %d", s.Requests.Completed)
	}
	within(t, "achieved rate", s.AchievedRate, 100, 0.05)
	// The schedule is fixed in advance, so lag is only timer and goroutine
	// wake-up: a few ms at worst on a loaded machine, never a backlog.
	if s.ClientLag.P50 > 10 {
		t.Errorf("client lag p50 %.3f ms at 100 req/s", s.ClientLag.P50)
	}
}

func TestRecordsRoundTripGiveSameReport(t *testing.T) {
	sc := scripted.Script{TTFT: 5 * time.Millisecond, Gap: 2 * time.Millisecond, Usage: true, PerEvent: 2}
	srv := scripted.New(sc)
	defer srv.Close()
	clock := record.NewClock()
	cl, err := client.NewHTTP(client.HTTPConfig{URL: srv.URL, Stream: true, Concurrency: 8, Clock: clock})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	var buf bytes.Buffer
	targets := metrics.Targets{List: []metrics.Target{{Name: metrics.TargetTTFT, Want: 100}, {Name: metrics.TargetSystemTPS, Want: 10}}}
	plan := tpsbench.Plan{Clock: clock, Targets: targets, Records: record.NewWriter(&buf), Steps: []tpsbench.Step{
		{Label: "a", Model: "m", Client: cl, Profile: load.Profile{Shape: load.Users{Count: 8}, Requests: 24, Warmup: 2}, Workload: workload.Fixed{Prompt: "p", MaxTokens: 9}},
		{Label: "b", Model: "m", Client: cl, Profile: load.Profile{Shape: load.Users{Count: 2}, Requests: 4}, Workload: workload.Fixed{Prompt: "p", MaxTokens: 9}},
	}}
	res, err := tpsbench.Run(context.Background(), plan)
	if err != nil {
		t.Fatal(err)
	}
	steps := metrics.NewSteps(targets)
	rd := record.NewReader(&buf, "buf")
	for {
		var rec record.Record
		if err := rd.Next(&rec); err != nil {
			break
		}
		steps.Add(&rec)
	}
	a, _ := json.Marshal(res.Steps)
	b, _ := json.Marshal(steps.Summaries())
	if !bytes.Equal(a, b) {
		t.Fatalf("figures differ after a round trip through the records file:\nrun:    %s\nreread: %s", a, b)
	}
}

// TestClientLoad: each step carries the process's CPU over its wall time,
// and none when the server runs in the process.
func TestClientLoad(t *testing.T) {
	srv := scripted.New(scripted.Script{TTFT: time.Millisecond, Gap: time.Millisecond, Usage: true})
	defer srv.Close()
	for _, inProcess := range []bool{false, true} {
		cl, err := client.NewHTTP(client.HTTPConfig{URL: srv.URL, Stream: true, Concurrency: 4})
		if err != nil {
			t.Fatal(err)
		}
		defer cl.Close()
		res, err := tpsbench.Run(context.Background(), tpsbench.Plan{ServerInProcess: inProcess, Steps: []tpsbench.Step{{
			Label: "s", Model: "m", Client: cl, Profile: load.Profile{Shape: load.Users{Count: 4}, Requests: 40},
			Workload: workload.Fixed{Prompt: "p", MaxTokens: 20}}}})
		if err != nil {
			t.Fatal(err)
		}
		c := res.Steps[0].Client
		if inProcess {
			if c != nil {
				t.Errorf("server in process: client load %+v", c)
			}
			continue
		}
		if c == nil {
			t.Fatal("no client load")
		}
		// the step's window lies inside the wall time measured around it
		if c.Cores != runtime.GOMAXPROCS(0) || c.WallSeconds < res.Steps[0].DurationS || c.CPUSeconds <= 0 ||
			math.Abs(c.Share-c.CPUSeconds/(c.WallSeconds*float64(c.Cores))) > 1e-12 {
			t.Errorf("client load %+v, step window %.4f s", c, res.Steps[0].DurationS)
		}
		// the most the process held over the step, for its 4 streams
		if _, known := procmem.Peak(); known && procmem.ResetPeak() &&
			(c.Streams != 4 || c.PeakBytes <= 0 || c.BytesPerStream() != c.PeakBytes/4) {
			t.Errorf("client memory: %d bytes for %d streams", c.PeakBytes, c.Streams)
		}
	}
}

// A budget is what the request asks, not what comes back: a run whose
// budget is record.MaxTokens reserves no room for it before sending
// (it asked for a 25.8 GB block and died of it, losing every record).
func TestHugeBudgetReservesNothing(t *testing.T) {
	srv := scripted.New(scripted.Script{Tokens: 5, Usage: true})
	defer srv.Close()
	cl, err := client.NewHTTP(client.HTTPConfig{URL: srv.URL, Stream: true, Concurrency: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	res, err := tpsbench.Run(context.Background(), tpsbench.Plan{Steps: []tpsbench.Step{{
		Label: "s", Model: "m", Client: cl, Profile: load.Profile{Shape: load.Users{Count: 2}, Requests: 4},
		Workload: workload.Fixed{Prompt: "p", MaxTokens: record.MaxTokens}}}})
	if err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if s := res.Steps[0]; s.Requests.Completed != 4 || s.OutputTokens != 20 {
		t.Errorf("%d requests ok, %d output tokens; want 4 and 20", s.Requests.Completed, s.OutputTokens)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 64<<20 {
		t.Errorf("four 5-token answers allocated %d MB", grew>>20)
	}
}
