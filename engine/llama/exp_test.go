package llama

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestExpShiftMatchesExp32: the vector kernel gives exp32's values bit for
// bit (the same steps in the same order, unfused), over the range sampling
// feeds it, and the clamp; the sum agrees to float64 rounding.
func TestExpShiftMatchesExp32(t *testing.T) {
	for _, wide := range []bool{true, false} { // AVX-512, then AVX2
		restore := setAVX512ForTest(wide)
		testExpShift(t)
		restore()
	}
}

func testExpShift(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{1, 7, 8, 9, 15, 16, 17, 64, 32000, 32003} {
		logits := make([]float32, n)
		for i := range logits {
			switch i % 5 {
			case 0:
				logits[i] = float32(r.NormFloat64() * 4)
			case 1:
				logits[i] = -float32(r.Float64() * 200) // past the lower clamp
			case 2:
				logits[i] = float32(r.Float64()) * 1e-6
			default:
				logits[i] = float32(r.NormFloat64())
			}
		}
		mx := logits[argmax(logits)]
		for _, inv := range []float32{1, 1 / 0.7, 1 / 1.3} {
			p := make([]float32, n)
			sum := expShift(p, logits, mx, inv)
			want := 0.0
			for i, l := range logits {
				e := exp32((l - mx) * inv)
				if math.Float32bits(p[i]) != math.Float32bits(e) {
					t.Fatalf("n %d, inv %v: exp of %v = %v, exp32 %v", n, inv, (l-mx)*inv, p[i], e)
				}
				want += float64(e)
			}
			if math.Abs(sum-want) > 1e-12*want {
				t.Fatalf("n %d: sum %v, want %v", n, sum, want)
			}
		}
	}
}

func BenchmarkExpShift(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	logits := make([]float32, 32000)
	for i := range logits {
		logits[i] = float32(r.NormFloat64() * 3)
	}
	p := make([]float32, len(logits))
	mx := logits[argmax(logits)]
	b.SetBytes(int64(4 * len(logits)))
	for b.Loop() {
		_ = expShift(p, logits, mx, 1)
	}
}
