package half

import (
	"math"
	"testing"
)

func TestKnownValues(t *testing.T) {
	cases := map[uint16]float32{0x0000: 0, 0x3c00: 1, 0xc000: -2, 0x7bff: 65504, 0x0001: 5.960464477539063e-08, 0x3555: 0.33325195}
	for h, f := range cases {
		if got := ToFloat32(h); got != f {
			t.Errorf("ToFloat32(%#x) = %v, want %v", h, got, f)
		}
		if got := FromFloat32(f); got != h {
			t.Errorf("FromFloat32(%v) = %#x, want %#x", f, got, h)
		}
	}
	if !math.IsInf(float64(ToFloat32(FromFloat32(1e6))), 1) {
		t.Error("overflow does not saturate to +inf")
	}
}

// TestRoundTripAll: every finite half converts to float32 and back unchanged.
func TestRoundTripAll(t *testing.T) {
	for i := 0; i < 1<<16; i++ {
		h := uint16(i)
		f := ToFloat32(h)
		if math.IsNaN(float64(f)) {
			continue
		}
		if back := FromFloat32(f); back != h {
			t.Fatalf("%#x -> %v -> %#x", h, f, back)
		}
		if Table(h) != f {
			t.Fatalf("table differs at %#x", h)
		}
	}
}

// TestNearest: FromFloat32 picks the nearest half (checked by brute force).
func TestNearest(t *testing.T) {
	for _, f := range []float32{0.1, -3.14159, 1e-5, 6.1e-5, 1234.567, 0.33333334, 2.9e-8} {
		h := FromFloat32(f)
		got := math.Abs(float64(ToFloat32(h) - f))
		for _, n := range []uint16{h - 1, h + 1} {
			if d := math.Abs(float64(ToFloat32(n) - f)); d < got {
				t.Errorf("FromFloat32(%v) = %v, but %v is nearer", f, ToFloat32(h), ToFloat32(n))
			}
		}
	}
}
