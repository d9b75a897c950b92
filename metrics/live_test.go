package metrics

import (
	"testing"
	"time"
)

func TestSecondBins(t *testing.T) {
	var b SecondBins
	base := time.Unix(1_800_000_000, 0)
	for s := 0; s < 10; s++ {
		b.Add(base.Add(time.Duration(s)*time.Second+time.Millisecond).UnixNano(), 5) // 5 tokens a second
	}
	b.Add(base.Add(-100*time.Second).UnixNano(), 1000) // long before the window: in the total only
	now := base.Add(10 * time.Second)
	if got := b.Rate(10, now); got != 5 {
		t.Errorf("rate over the last 10 s: %v, want 5", got)
	}
	last := b.Last(3, now)
	if len(last) != 3 || last[0] != 5 || last[2] != 5 {
		t.Errorf("last 3 s: %v", last)
	}
	// 1,050 tokens since the first (100 s before base) over 110 s
	if got := b.Cumulative(now); got < 9.5 || got > 9.6 {
		t.Errorf("cumulative %v, want 1050/110", got)
	}
}

// TestRateEarly: 2.5 s into a stream a 10 s window divides by the 2 whole
// seconds that have passed, not by 10 (40.6 tokens/s shown for 173).
func TestRateEarly(t *testing.T) {
	var b SecondBins
	base := time.Unix(1_800_000_000, 0)
	for ms := 0; ms < 2500; ms += 10 {
		b.Add(base.Add(time.Duration(ms)*time.Millisecond).UnixNano(), 2) // 200 tokens a second
	}
	if got := b.Rate(10, base.Add(2500*time.Millisecond)); got != 200 {
		t.Errorf("rate 2.5 s in: %v, want 200", got)
	}
	if got := b.Rate(10, base.Add(500*time.Millisecond)); got != 0 {
		t.Errorf("rate within the first second: %v, want 0 (no whole second yet)", got)
	}
}
