package tpsbench_test

import (
	"math"
	"testing"

	"github.com/tpsbench/tpsbench"
)

func TestRatesBetween(t *testing.T) {
	for _, tc := range []struct {
		low, high float64
		n         int
		want      []float64
	}{
		{2, 10, 3, []float64{4, 6, 8}},
		{1, 2, 1, []float64{1.5}},
		{0, 9, 2, []float64{3, 6}},
		{5, 5, 3, nil},
		{6, 5, 3, nil},
		{1, 5, 0, nil},
		{-1, 5, 2, nil},
		{1, math.NaN(), 2, nil},
	} {
		got := tpsbench.RatesBetween(tc.low, tc.high, tc.n)
		if len(got) != len(tc.want) {
			t.Errorf("RatesBetween(%v, %v, %d) = %v, want %v", tc.low, tc.high, tc.n, got, tc.want)
			continue
		}
		for i := range got {
			if math.Abs(got[i]-tc.want[i]) > 1e-12 {
				t.Errorf("RatesBetween(%v, %v, %d) = %v, want %v", tc.low, tc.high, tc.n, got, tc.want)
			}
		}
	}
}
