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
