package load

import (
	"context"
	"errors"
	"iter"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
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
	recs := collect(Run(context.Background(), Profile{Shape: Users{Count: 4}, Requests: 20, Warmup: 3}, fake(5*time.Millisecond, &inFlight, &peak)))
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
	recs := collect(Run(context.Background(), Profile{Shape: Users{Count: 50}, Requests: 50}, fake(50*time.Millisecond, &inFlight, &peak)))
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
		{"requests", Profile{Shape: Users{Count: 64}, Requests: 128}, func(int) bool { return true }},
		{"sessions", Profile{Shape: Users{Count: 32}, Requests: 128, Sessions: Sessions{Turns: 2}}, func(seq int) bool { return seq%2 == 0 }},
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
			if users := c.profile.Shape.(Users).Count; atStart != users {
				t.Errorf("%d requests due at the start, want one for each of %d users", atStart, users)
			}
		})
	}
}

// TestDuration: a closed loop bound by a duration sends until it ends
// and no request is due after it; each user sent at least one.
func TestDuration(t *testing.T) {
	var inFlight, peak atomic.Int64
	const dur = 100 * time.Millisecond
	began := time.Now()
	recs := collect(Run(context.Background(), Profile{Shape: Users{Count: 2}, Duration: dur}, fake(10*time.Millisecond, &inFlight, &peak)))
	if el := time.Since(began); el < dur {
		t.Errorf("ran %v for a %v duration", el, dur)
	}
	if len(recs) < 2 {
		t.Fatalf("%d records from 2 users", len(recs))
	}
	for _, r := range recs {
		// the phase began before now-began's start and no later than the
		// first request was due: no request is due a duration past that
		if r.Scheduled >= began.Add(dur).UnixNano() {
			t.Errorf("request %d due %v after the run began, past its duration", r.Seq, time.Duration(r.Scheduled-began.UnixNano()))
		}
	}
}

// TestRateAchieved: an open loop's starts are due at its arrivals however
// long each request takes (far longer than the gap here), and none is
// sent before it is due, so the requests pile up in flight.
func TestRateAchieved(t *testing.T) {
	for _, arr := range []Process{Constant, Poisson} {
		t.Run(string(arr), func(t *testing.T) {
			var inFlight, peak atomic.Int64
			shape := Rate{PerSecond: 400, Gaps: Gaps{Process: arr}}
			p := Profile{Shape: shape, Seed: 7, Requests: 200}
			recs := collect(Run(context.Background(), p, fake(100*time.Millisecond, &inFlight, &peak)))
			if len(recs) != 200 {
				t.Fatalf("%d records", len(recs))
			}
			var want []time.Duration
			for a := range shape.Arrivals(7) {
				if want = append(want, a.At); len(want) == 200 {
					break
				}
			}
			sort.Slice(recs, func(a, b int) bool { return recs[a].Seq < recs[b].Seq })
			for i, r := range recs {
				if got := time.Duration(r.Scheduled - recs[0].Scheduled); (got - want[i]).Abs() > time.Microsecond {
					t.Fatalf("request %d due %v after the first, want %v", i, got, want[i])
				}
				if r.Sent < r.Scheduled {
					t.Errorf("request %d sent before it was due", i)
				}
			}
			if arr == Constant && want[199] != 199*2500*time.Microsecond {
				t.Errorf("constant arrivals at 400/s: the 200th at %v, want 497.5 ms", want[199])
			}
			if span := want[199].Seconds(); arr == Poisson && math.Abs(199/span-400)/400 > 0.25 {
				t.Errorf("poisson schedule of 200 at 400/s spans %.2f req/s", 199/span)
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
		recs := collect(Run(context.Background(), Profile{Shape: Rate{PerSecond: 2000, Gaps: Gaps{Process: Poisson}}, Seed: seed, Requests: 20}, func(ctx context.Context, j Job) *record.Record {
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
	recs := collect(Run(context.Background(), Profile{Shape: Rate{PerSecond: 1000}, MaxInFlight: 2, Requests: 20}, fake(20*time.Millisecond, &inFlight, &peak)))
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

// TestCancelStopsAndGraceCancelsInFlight: requests that never end are
// cancelled once the grace after a stop runs out, and recorded so.
func TestCancelStopsAndGraceCancelsInFlight(t *testing.T) {
	var inFlight, peak atomic.Int64
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	recs := collect(Run(ctx, Profile{Shape: Users{Count: 3}, Requests: 1000, Grace: 100 * time.Millisecond}, fake(time.Hour, &inFlight, &peak)))
	if len(recs) != 3 {
		t.Fatalf("%d records, want the 3 in flight", len(recs))
	}
	for _, r := range recs {
		if r.Error == nil || r.Error.Kind != record.KindCanceled {
			t.Errorf("in-flight record %+v not marked canceled", r)
		}
	}
}

// TestCancelLetsShortRequestsFinish: a stop ends the schedule (nothing
// due after it is sent) and the requests in flight finish within their
// grace.
func TestCancelLetsShortRequestsFinish(t *testing.T) {
	var inFlight, peak atomic.Int64
	ctx, cancel := context.WithCancel(context.Background())
	var stopped atomic.Int64
	base := fake(50*time.Millisecond, &inFlight, &peak)
	do := func(c context.Context, j Job) *record.Record {
		if j.Seq == 2 {
			stopped.Store(time.Now().UnixNano())
			cancel()
		}
		return base(c, j)
	}
	recs := collect(Run(ctx, Profile{Shape: Rate{PerSecond: 100}, Requests: 1000, Grace: time.Hour}, do))
	if len(recs) < 3 {
		t.Fatalf("%d records, want the 3 sent before the stop at least", len(recs))
	}
	for _, r := range recs {
		if r.Error != nil {
			t.Errorf("request %d within grace failed: %v", r.Seq, r.Error)
		}
		if r.Scheduled > stopped.Load() {
			t.Errorf("request %d due %v after the stop was sent", r.Seq, time.Duration(r.Scheduled-stopped.Load()))
		}
	}
}

func TestValidate(t *testing.T) {
	bad := map[string]Profile{
		"no shape":             {Requests: 1},
		"no users":             {Shape: Users{}, Requests: 1},
		"negative users":       {Shape: Users{Count: -1}, Requests: 1},
		"unbounded":            {Shape: Users{Count: 1}},
		"a rate of NaN":        {Shape: Rate{PerSecond: math.NaN()}, Requests: 1},
		"an infinite rate":     {Shape: Rate{PerSecond: math.Inf(1)}, Requests: 1},
		"unknown arrivals":     {Shape: Rate{PerSecond: 1, Gaps: Gaps{Process: "bursty"}}, Requests: 1},
		"negative requests":    {Shape: Users{Count: 1}, Requests: -2},
		"negative warm-up":     {Shape: Users{Count: 1}, Requests: 2, Warmup: -1},
		"negative duration":    {Shape: Users{Count: 1}, Duration: -time.Second},
		"negative grace":       {Shape: Users{Count: 1}, Requests: 1, Grace: -time.Second},
		"a cap on users":       {Shape: Users{Count: 2}, Requests: 1, MaxInFlight: 1},
		"a negative cap":       {Shape: Rate{PerSecond: 1}, Requests: 1, MaxInFlight: -1},
		"a shape of neither":   {Shape: neither{}, Requests: 1},
		"cancel share over 1":  {Shape: Users{Count: 1}, Requests: 1, Cancel: Cancel{Share: 1.5, After: time.Second}},
		"cancel without delay": {Shape: Users{Count: 1}, Requests: 1, Cancel: Cancel{Share: 0.5}},
		"delay without share":  {Shape: Users{Count: 1}, Requests: 1, Cancel: Cancel{After: time.Second}},
		"negative delay":       {Shape: Users{Count: 1}, Requests: 1, Cancel: Cancel{Share: 0.5, After: -time.Second}},
	}
	for name, p := range bad {
		if p.Validate() == nil {
			t.Errorf("%s: %+v accepted", name, p)
		}
	}
	for name, p := range map[string]Profile{
		"a rate for a duration": {Shape: Rate{PerSecond: 1}, Duration: time.Second},
		"users for requests":    {Shape: Users{Count: 3}, Requests: 1},
		"a capped rate":         {Shape: Rate{PerSecond: 1, Gaps: Gaps{Process: Poisson}}, Requests: 1, MaxInFlight: 4},
		"a trace alone":         {Shape: &fixedPacer{}},
		"planned cancels":       {Shape: Users{Count: 1}, Requests: 1, Cancel: Cancel{Share: 1, After: time.Second}},
	} {
		if err := p.Validate(); err != nil {
			t.Errorf("%s refused: %v", name, err)
		}
	}
}

// neither is a shape that is neither a Pacer nor a Crowd.
type neither struct{}

func (neither) String() string { return "neither" }
func (neither) Check() error   { return nil }

// TestShardsAddUp: the shards of an open loop send, between them, exactly
// the whole profile's arrivals, each once; those of a closed loop run
// every user once, each starting when it would have; counts and the cap
// are shared out.
func TestShardsAddUp(t *testing.T) {
	whole := Rate{PerSecond: 30, Gaps: Gaps{Process: Poisson}}
	p := Profile{Shape: whole, MaxInFlight: 10, MaxPrefill: 4, Requests: 101, Warmup: 5, Seed: 1}
	var arrivals []time.Duration
	for a := range whole.Arrivals(p.Seed) {
		if arrivals = append(arrivals, a.At); len(arrivals) == 101 {
			break
		}
	}
	var got []time.Duration
	var c, r, w, pre int
	for i := range 3 {
		q, err := p.Shard(i, 3)
		if err != nil {
			t.Fatal(err)
		}
		c, r, w, pre = c+q.MaxInFlight, r+q.Requests, w+q.Warmup, pre+q.MaxPrefill
		k := 0
		for a := range q.Shape.(Pacer).Arrivals(q.Seed) {
			if k == q.Requests {
				break
			}
			got, k = append(got, a.At), k+1
		}
	}
	slices.Sort(got)
	if pre != 4 {
		t.Errorf("shards' prefill caps add up to %d, want 4", pre)
	}
	if _, err := (Profile{Shape: whole, MaxPrefill: 2, Requests: 10}).Shard(2, 3); err == nil {
		t.Error("a prefill cap of 2 over 3 shards left one none, without error")
	}
	if err := (Profile{Shape: Users{Count: 2}, Requests: 2, MaxPrefill: -1}).Validate(); err == nil {
		t.Error("a negative prefill cap taken")
	}
	if c != 10 || r != 101 || w != 5 || !slices.Equal(got, arrivals) {
		t.Fatalf("shards add up to cap %d, requests %d, warm-up %d; arrivals equal the whole's: %v", c, r, w, slices.Equal(got, arrivals))
	}

	users := Users{Count: 10, RampUp: time.Second}
	starts := map[time.Duration]int{}
	for i := range 3 {
		q, err := Profile{Shape: users, Requests: 100}.Shard(i, 3)
		if err != nil {
			t.Fatal(err)
		}
		crowd := q.Shape.(Crowd)
		for u := range crowd.Users() {
			starts[crowd.Start(u)]++
		}
	}
	for u := range users.Count {
		if starts[users.Start(u)] != 1 {
			t.Errorf("user %d's start %v is run by %d shards, want 1", u, users.Start(u), starts[users.Start(u)])
		}
	}
	if _, err := (Profile{Shape: Users{Count: 2}, Requests: 10}).Shard(2, 3); err == nil {
		t.Error("a shard with no users accepted")
	}
	if _, err := p.Shard(3, 3); err == nil {
		t.Error("shard index out of range accepted")
	}
	if _, err := (Profile{Shape: &fixedPacer{}}).Shard(0, 2); err == nil {
		t.Error("a trace sharded by its arrivals")
	}
}

// TestGapDistributions: whatever the process, gaps average 1 (then laid
// on the rate); their coefficient of variation is 0 for constant, 1 for
// Poisson and 1/sqrt(burstiness) for gamma (its shape). 200,000 draws of
// a fixed seed.
func TestGapDistributions(t *testing.T) {
	const n = 200000
	for _, tc := range []struct {
		g  Gaps
		cv float64
	}{
		{Gaps{}, 0},
		{Gaps{Process: Constant}, 0},
		{Gaps{Process: Poisson}, 1},
		{Gaps{Process: Gamma, Burstiness: 1}, 1},
		{Gaps{Process: Gamma, Burstiness: 0.25}, 2},
		{Gaps{Process: Gamma, Burstiness: 0.5}, math.Sqrt2},
		{Gaps{Process: Gamma, Burstiness: 4}, 0.5},
	} {
		rng := rand.New(rand.NewPCG(3, 4))
		var sum, sq float64
		for range n {
			g := tc.g.unit(rng)
			if !(g >= 0) || math.IsInf(g, 0) {
				t.Fatalf("%+v: gap %v", tc.g, g)
			}
			sum += g
			sq += g * g
		}
		mean := sum / n
		cv := math.Sqrt(max(sq/n-mean*mean, 0)) / mean
		if math.Abs(mean-1) > 0.02 || math.Abs(cv-tc.cv) > 0.03*max(tc.cv, 1) {
			t.Errorf("%+v: mean gap %.5f (want 1), CV %.3f (want %.3f)", tc.g, mean, cv, tc.cv)
		}
	}
}

func TestGammaNeedsBurstiness(t *testing.T) {
	for _, g := range []Gaps{
		{Process: Gamma},
		{Process: Gamma, Burstiness: -1},
		{Process: Gamma, Burstiness: math.Inf(1)},
		{Process: Gamma, Burstiness: math.NaN()},
		{Process: Poisson, Burstiness: 2},
	} {
		if (Rate{PerSecond: 5, Gaps: g}).Check() == nil {
			t.Errorf("%+v accepted", g)
		}
	}
	if err := (Rate{PerSecond: 5, Gaps: Gaps{Process: Gamma, Burstiness: 0.5}}).Check(); err != nil {
		t.Error(err)
	}
}

// fixedPacer is a trace's schedule: fixed offsets, ending after the last.
type fixedPacer struct{ offsets []time.Duration }

func (f *fixedPacer) String() string { return "fixed" }
func (f *fixedPacer) Check() error   { return nil }
func (f *fixedPacer) Finite() bool   { return true }
func (f *fixedPacer) Arrivals(uint64) iter.Seq[Arrival] {
	return func(yield func(Arrival) bool) {
		for _, d := range f.offsets {
			if !yield(Arrival{At: d}) {
				return
			}
		}
	}
}

// TestScheduleStartsOnTime: a finite pacer's requests are scheduled at
// exactly its offsets from the step's start, in order, until it ends,
// with no count or duration to bound it; a request that could not start
// on time (held by the cap) keeps its scheduled time, so its lag shows.
func TestScheduleStartsOnTime(t *testing.T) {
	want := []time.Duration{0, 30 * time.Millisecond, 30 * time.Millisecond, 90 * time.Millisecond}
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
	for range Run(context.Background(), Profile{Shape: &fixedPacer{want}, MaxInFlight: 1}, do) {
		n++
	}
	if n != len(want) || len(jobs) != len(want) {
		t.Fatalf("%d records, %d jobs; want %d", n, len(jobs), len(want))
	}
	start := jobs[0].Scheduled
	for i, j := range jobs {
		if j.Seq != i || j.Scheduled.Sub(start) != want[i] || j.Rate != 0 {
			t.Errorf("job %d: seq %d scheduled %v after the first at rate %v, want %v at none", i, j.Seq, j.Scheduled.Sub(start), j.Rate, want[i])
		}
	}
}

// TestGraceEndsForTheStopsReason: requests still going when the grace
// after a stop runs out are ended for the stop's own reason, with the
// grace said, so a record can say why (a user's Ctrl-C), not which read
// the ending broke off.
func TestGraceEndsForTheStopsReason(t *testing.T) {
	why := errors.New("interrupted by the user")
	ctx, stop := context.WithCancelCause(context.Background())
	started := make(chan struct{})
	var causes []error
	var mu sync.Mutex
	do := func(c context.Context, j Job) *record.Record {
		started <- struct{}{}
		<-c.Done()
		mu.Lock()
		causes = append(causes, context.Cause(c))
		mu.Unlock()
		return &record.Record{Seq: j.Seq}
	}
	recs := Run(ctx, Profile{Shape: Users{Count: 2}, Requests: 2, Grace: time.Millisecond}, do)
	<-started
	<-started
	stop(why)
	collect(recs)
	for _, c := range causes {
		if !errors.Is(c, why) || !strings.Contains(c.Error(), "within the 1ms grace") {
			t.Errorf("ended for %v, want the stop's reason and the grace", c)
		}
	}
	if len(causes) != 2 {
		t.Errorf("%d requests ended", len(causes))
	}
}
