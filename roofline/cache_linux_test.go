package roofline

import "testing"

func TestCacheSize(t *testing.T) {
	for in, want := range map[string]float64{"32768K\n": 32 << 20, "1M": 1 << 20, "512": 512, "x": 0, "": 0, "-4K": 0} {
		if got := cacheSize(in); got != want {
			t.Errorf("cacheSize(%q) = %v, want %v", in, got, want)
		}
	}
}
