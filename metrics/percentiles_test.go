package metrics

import (
	"reflect"
	"testing"
)

func TestParsePercentiles(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []float64
		ok   bool
	}{
		{"", nil, true},
		{"99.9, 50,75", []float64{50, 75, 99.9}, true},
		{"100", []float64{100}, true},
		{"0", nil, false},
		{"101", nil, false},
		{"50,50", nil, false},
		{"NaN", nil, false},
		{"50,", nil, false},
	} {
		got, err := ParsePercentiles(tc.in)
		if (err == nil) != tc.ok || (tc.ok && !reflect.DeepEqual(got, tc.want)) {
			t.Errorf("%q: %v, %v", tc.in, got, err)
		}
	}
	if k := PercentileKey(99.99); k != "p99.99" {
		t.Errorf("key %q", k)
	}
}

// FuzzParsePercentiles: any list gives percentiles above 0 and at most
// 100, rising, or an error.
func FuzzParsePercentiles(f *testing.F) {
	f.Add("50,90,99.9")
	f.Add("1e2,1e-300,+Inf")
	f.Fuzz(func(t *testing.T, s string) {
		qs, err := ParsePercentiles(s)
		if err != nil {
			return
		}
		for i, q := range qs {
			if !(q > 0 && q <= 100) || (i > 0 && q <= qs[i-1]) {
				t.Fatalf("%q gave %v", s, qs)
			}
		}
	})
}
