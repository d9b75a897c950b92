package load

import (
	"context"
	"math"
	"math/rand/v2"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/tpsbench/tpsbench/record"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// fake returns a Func that takes d per request and tracks concurrency.
func fake(d time.Duration, inFlight, peak *atomic.Int64) Func {
	return func(ctx context.Context, job Job) *record.Record {
		n := inFlight.Add(1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		defer inFlight.Add(-1)
		r := &record.Record{Seq: job.Seq, Warmup: job.Warmup, Scheduled: job.Scheduled.UnixNano(), Sent: time.Now().UnixNano()}
		select {
		case <-time.After(d):
		case <-ctx.Done():
			r.Fail(record.KindCanceled, "canceled")
		}
		r.Done = time.Now().UnixNano()
		return r
	}
}

func collect(ch <-chan *record.Record) []*record.Record {
	var out []*record.Record
	for r := range ch {
		out = append(out, r)
	}
	return out
}

func TestClosedLoop(t *testing.T) {
	var inFlight, peak atomic.Int64
	recs := collect(Run(context.Background(), Profile{Concurrency: 4, Requests: 20, Warmup: 3}, fake(5*time.Millisecond, &inFlight, &peak)))
	if len(recs) != 23 {
		t.Fatalf("%d records, want 23", len(recs))
	}
	if peak.Load() != 4 {
		t.Errorf("peak concurrency %d, want 4", peak.Load())
	}
	var seqs []int
	warm := 0
	for i, r := range recs {
		if r.Warmup {
			warm++
			if i >= 3 {
				t.Errorf("warm-up record at position %d, after measured ones", i)
			}
			continue
		}
		seqs = append(seqs, r.Seq)
	}
	sort.Ints(seqs)
	for i, s := range seqs {
		if s != i {
			t.Fatalf("measured seqs %v, want 0..19 once each", seqs)
		}
	}
	if warm != 3 {
		t.Errorf("%d warm-up records, want 3", warm)
	}
}

func TestBatchAllAtOnce(t *testing.T) {
	var inFlight, peak atomic.Int64
	recs := collect(Run(context.Background(), Profile{Concurrency: 50, Requests: 50}, fake(50*time.Millisecond, &inFlight, &peak)))
	if len(recs) != 50 || peak.Load() != 50 {
		t.Fatalf("%d records, peak %d; want 50 all in flight at once", len(recs), peak.Load())
	}
}

// TestBatchDueAtOnce: a closed loop's first requests, and its sessions'
// first turns, one a user, were all due at the step's start, so a user
// whose goroutine ran late shows that wait as its client lag instead of
// moving its due time; later requests are due when their user's previous
// one ended.
func TestBatchDueAtOnce(t *testing.T) {
	for _, c := range []struct {
		name      string
		profile   Profile
		firstTurn func(seq int) bool
	}{
		{"requests", Profile{Concurrency: 64, Requests: 128}, func(int) bool { return true }},
		{"sessions", Profile{Concurrency: 32, Requests: 128, Turns: 2}, func(seq int) bool { return seq%2 == 0 }},
	} {
		t.Run(c.name, func(t *testing.T) {
			var inFlight, peak atomic.Int64
			recs := collect(Run(context.Background(), c.profile, fake(20*time.Millisecond, &inFlight, &peak)))
			if len(recs) != 128 {
				t.Fatalf("%d records, want 128", len(recs))
			}
			first := recs[0].Scheduled
			for _, r := range recs {
				first = min(first, r.Scheduled)
			}
			atStart := 0
			for _, r := range recs {
				if r.Scheduled != first {
					continue
				}
				atStart++
				if !c.firstTurn(r.Seq) {
					t.Errorf("request %d, a later turn, due at the start", r.Seq)
				}
			}
			if atStart != c.profile.Concurrency {
				t.Errorf("%d requests due at the start, want one for each of %d users", atStart, c.profile.Concurrency)
			}
		})
	}
}

func TestDuration(t *testing.T) {
	var inFlight, peak atomic.Int64
	start := time.Now()
	recs := collect(Run(context.Background(), Profile{Concurrency: 2, Duration: 100 * time.Millisecond}, fake(10*time.Millisecond, &inFlight, &peak)))
	el := time.Since(start)
	if el < 100*time.Millisecond || el > 2*time.Second {
		t.Errorf("ran %v for a 100 ms duration", el)
	}
	// About 2 workers x 10 requests; scheduling noise allows a wide band.
	if len(recs) < 4 || len(recs) > 22 {
		t.Errorf("%d records in 100 ms at concurrency 2 with 10 ms requests", len(recs))
	}
}

// TestRateAchieved checks that an open-loop rate is kept over 200 requests
// even though every request takes far longer than the gap between starts.
func TestRateAchieved(t *testing.T) {
	for _, arr := range []Arrivals{Constant, Poisson} {
		t.Run(string(arr), func(t *testing.T) {
			var inFlight, peak atomic.Int64
			p := Profile{Rate: 400, Arrivals: arr, Seed: 7, Requests: 200}
			recs := collect(Run(context.Background(), p, fake(100*time.Millisecond, &inFlight, &peak)))
			if len(recs) != 200 {
				t.Fatalf("%d records", len(recs))
			}
			var first, last int64 = math.MaxInt64, 0
			for _, r := range recs {
				first, last = min(first, r.Sent), max(last, r.Sent)
			}
			// Achieved over the sends, against the schedule's own span:
			// Poisson gaps vary, so compare with the scheduled span.
			var sf, sl int64 = math.MaxInt64, 0
			for _, r := range recs {
				sf, sl = min(sf, r.Scheduled), max(sl, r.Scheduled)
			}
			asked := 199 / (float64(sl-sf) / 1e9)
			got := 199 / (float64(last-first) / 1e9)
			if math.Abs(got-asked)/asked > 0.05 {
				t.Errorf("achieved %.1f req/s against %.1f scheduled", got, asked)
			}
			if arr == Constant && math.Abs(asked-400)/400 > 0.001 {
				t.Errorf("constant schedule spans %.2f req/s, want 400", asked)
			}
			if arr == Poisson && math.Abs(asked-400)/400 > 0.25 {
				t.Errorf("poisson schedule of 200 at 400/s spans %.2f req/s", asked)
			}
			if peak.Load() < 20 {
				t.Errorf("peak in flight %d: open loop should pile up requests (40 expected)", peak.Load())
			}
		})
	}
}

func TestPoissonSeeded(t *testing.T) {
	sched := func(seed uint64) []int64 {
		var inFlight, peak atomic.Int64
		var mu sync.Mutex
		var out []int64
		base := fake(0, &inFlight, &peak)
		recs := collect(Run(context.Background(), Profile{Rate: 2000, Arrivals: Poisson, Seed: seed, Requests: 20}, func(ctx context.Context, j Job) *record.Record {
			return base(ctx, j)
		}))
		mu.Lock()
		defer mu.Unlock()
		sort.Slice(recs, func(a, b int) bool { return recs[a].Seq < recs[b].Seq })
		for i := 1; i < len(recs); i++ {
			out = append(out, (recs[i].Scheduled-recs[0].Scheduled)/int64(time.Microsecond))
		}
		return out
	}
	a, b, c := sched(1), sched(1), sched(2)
	same := func(x, y []int64) bool {
		for i := range x {
			if d := x[i] - y[i]; d > 1 || d < -1 {
				return false
			}
		}
		return true
	}
	if !same(a, b) {
		t.Errorf("same seed, different schedules:\n%v\n%v", a, b)
	}
	if same(a, c) {
		t.Errorf("different seeds, same schedule")
	}
}

func TestRateCapShowsLag(t *testing.T) {
	var inFlight, peak atomic.Int64
	recs := collect(Run(context.Background(), Profile{Rate: 1000, Arrivals: Constant, Concurrency: 2, Requests: 20}, fake(20*time.Millisecond, &inFlight, &peak)))
	if peak.Load() > 2 {
		t.Fatalf("peak %d over the cap of 2", peak.Load())
	}
	var worst int64
	for _, r := range recs {
		worst = max(worst, r.Sent-r.Scheduled)
	}
	if worst < int64(50*time.Millisecond) {
		t.Errorf("worst client lag %v: a capped rate must show the wait as lag", time.Duration(worst))
	}
}

func TestCancelStopsAndGraceCancelsInFlight(t *testing.T) {
	var inFlight, peak atomic.Int64
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	start := time.Now()
	recs := collect(Run(ctx, Profile{Concurrency: 3, Requests: 1000, Grace: 100 * time.Millisecond}, fake(time.Hour, &inFlight, &peak)))
	if el := time.Since(start); el > 2*time.Second {
		t.Fatalf("took %v to stop", el)
	}
	if len(recs) != 3 {
		t.Fatalf("%d records, want the 3 in flight", len(recs))
	}
	for _, r := range recs {
		if r.Error == nil || r.Error.Kind != record.KindCanceled {
			t.Errorf("in-flight record %+v not marked canceled", r)
		}
	}
}

func TestCancelLetsShortRequestsFinish(t *testing.T) {
	var inFlight, peak atomic.Int64
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(30*time.Millisecond, cancel)
	recs := collect(Run(ctx, Profile{Rate: 100, Arrivals: Constant, Requests: 1000, Grace: 5 * time.Second}, fake(200*time.Millisecond, &inFlight, &peak)))
	if len(recs) == 0 || len(recs) > 10 {
		t.Fatalf("%d records", len(recs))
	}
	for _, r := range recs {
		if r.Error != nil {
			t.Errorf("request within grace failed: %v", r.Error)
		}
	}
}

func TestValidate(t *testing.T) {
	bad := []Profile{
		{Concurrency: -1, Requests: 1},
		{Requests: 1},
		{Concurrency: 1},
		{Rate: math.NaN(), Requests: 1},
		{Rate: 1, Requests: 1, Arrivals: "bursty"},
		{Concurrency: 1, Requests: -2},
	}
	for _, p := range bad {
		if p.Validate() == nil {
			t.Errorf("%+v accepted", p)
		}
	}
	if err := (Profile{Rate: 1, Duration: time.Second}).Validate(); err != nil {
		t.Error(err)
	}
}

func TestShardsAddUp(t *testing.T) {
	p := Profile{Concurrency: 10, Requests: 101, Warmup: 5, Rate: 30, Seed: 1}
	var c, r, w int
	var rate float64
	seeds := map[uint64]bool{}
	for i := 0; i < 3; i++ {
		q, err := p.Shard(i, 3)
		if err != nil {
			t.Fatal(err)
		}
		c, r, w, rate = c+q.Concurrency, r+q.Requests, w+q.Warmup, rate+q.Rate
		seeds[q.Seed] = true
	}
	if c != 10 || r != 101 || w != 5 || math.Abs(rate-30) > 1e-9 || len(seeds) != 3 {
		t.Fatalf("shards add up to concurrency %d requests %d warmup %d rate %v seeds %d", c, r, w, rate, len(seeds))
	}
	if _, err := (Profile{Concurrency: 2, Requests: 10}).Shard(2, 3); err == nil {
		t.Error("a shard with no concurrency accepted")
	}
	if _, err := p.Shard(3, 3); err == nil {
		t.Error("shard index out of range accepted")
	}
}

// TestGapDistributions: whatever the arrivals, gaps average 1/rate; their
// coefficient of variation is 0 for constant, 1 for Poisson and
// 1/sqrt(burstiness) for gamma (its shape). 200,000 draws of a fixed seed.
func TestGapDistributions(t *testing.T) {
	const rate, n = 50.0, 200000
	for _, tc := range []struct {
		p  Profile
		cv float64
	}{
		{Profile{Rate: rate, Arrivals: Constant}, 0},
		{Profile{Rate: rate, Arrivals: Poisson}, 1},
		{Profile{Rate: rate, Arrivals: Gamma, Burstiness: 1}, 1},
		{Profile{Rate: rate, Arrivals: Gamma, Burstiness: 0.25}, 2},
		{Profile{Rate: rate, Arrivals: Gamma, Burstiness: 0.5}, math.Sqrt2},
		{Profile{Rate: rate, Arrivals: Gamma, Burstiness: 4}, 0.5},
	} {
		rng := rand.New(rand.NewPCG(3, 4))
		var sum, sq float64
		for range n {
			g := tc.p.gap(rng)
			if !(g >= 0) || math.IsInf(g, 0) {
				t.Fatalf("%s %v: gap %v", tc.p.Arrivals, tc.p.Burstiness, g)
			}
			sum += g
			sq += g * g
		}
		mean := sum / n
		cv := math.Sqrt(max(sq/n-mean*mean, 0)) / mean
		if math.Abs(mean*rate-1) > 0.02 || math.Abs(cv-tc.cv) > 0.03*max(tc.cv, 1) {
			t.Errorf("%s burstiness %v: mean gap %.5f s (want %.5f), CV %.3f (want %.3f)", tc.p.Arrivals, tc.p.Burstiness, mean, 1/rate, cv, tc.cv)
		}
	}
}

func TestGammaNeedsBurstiness(t *testing.T) {
	for _, p := range []Profile{
		{Rate: 5, Requests: 1, Arrivals: Gamma},
		{Rate: 5, Requests: 1, Arrivals: Gamma, Burstiness: -1},
		{Rate: 5, Requests: 1, Arrivals: Gamma, Burstiness: math.Inf(1)},
		{Rate: 5, Requests: 1, Arrivals: Poisson, Burstiness: 2},
	} {
		if p.Validate() == nil {
			t.Errorf("%+v accepted", p)
		}
	}
	if err := (Profile{Rate: 5, Requests: 1, Arrivals: Gamma, Burstiness: 0.5}).Validate(); err != nil {
		t.Error(err)
	}
}

// offsets is a Schedule of fixed offsets.
type offsets []time.Duration

func (o *offsets) Next() (time.Duration, bool) {
	if len(*o) == 0 {
		return 0, false
	}
	d := (*o)[0]
	*o = (*o)[1:]
	return d, true
}

// TestScheduleStartsOnTime: a schedule's requests are scheduled at exactly
// its offsets from the step's start, in order, until it ends; a request
// that could not start on time (held by the concurrency cap) keeps its
// scheduled time, so its lag shows.
func TestScheduleStartsOnTime(t *testing.T) {
	want := offsets{0, 30 * time.Millisecond, 30 * time.Millisecond, 90 * time.Millisecond}
	sched := append(offsets(nil), want...)
	var mu sync.Mutex
	var jobs []Job
	do := func(ctx context.Context, j Job) *record.Record {
		mu.Lock()
		jobs = append(jobs, j)
		mu.Unlock()
		time.Sleep(50 * time.Millisecond)
		return &record.Record{Seq: j.Seq}
	}
	n := 0
	for range Run(context.Background(), Profile{Schedule: &sched, Concurrency: 1}, do) {
		n++
	}
	if n != len(want) || len(jobs) != len(want) {
		t.Fatalf("%d records, %d jobs; want %d", n, len(jobs), len(want))
	}
	start := jobs[0].Scheduled
	for i, j := range jobs {
		if j.Seq != i || j.Scheduled.Sub(start) != want[i] {
			t.Errorf("job %d: seq %d scheduled %v after the first, want %v", i, j.Seq, j.Scheduled.Sub(start), want[i])
		}
	}
}

func TestScheduleRefusesRates(t *testing.T) {
	var o offsets
	for _, p := range []Profile{{Schedule: &o, Rate: 2}, {Schedule: &o, Warmup: 1}, {Schedule: &o, Arrivals: Poisson}} {
		if p.Validate() == nil {
			t.Errorf("%+v accepted", p)
		}
	}
	if err := (Profile{Schedule: &o}).Validate(); err != nil {
		t.Errorf("a bare schedule refused: %v", err)
	}
}
