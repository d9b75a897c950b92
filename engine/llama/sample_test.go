package llama

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

func TestSampler(t *testing.T) {
	logits := []float32{1, 5, 2, 4.9, -3}
	if got := NewSampler(0, 1, 0, 1).Sample(logits); got != 1 {
		t.Errorf("greedy picked %d", got)
	}
	// top-k 2 only ever yields the two best.
	s := NewSampler(1, 1, 2, 7)
	counts := map[int]int{}
	for i := 0; i < 2000; i++ {
		counts[s.Sample(logits)]++
	}
	if len(counts) != 2 || counts[1] == 0 || counts[3] == 0 {
		t.Errorf("top-k 2 drew %v", counts)
	}
	// Frequencies follow the softmax: p(1)/p(3) = e^0.1.
	ratio := float64(counts[1]) / float64(counts[3])
	if math.Abs(ratio-math.Exp(0.1)) > 0.2 {
		t.Errorf("ratio %.3f, want about %.3f", ratio, math.Exp(0.1))
	}
	// top-p small keeps only the most likely token.
	if got := NewSampler(1, 0.3, 0, 3).Sample(logits); got != 1 {
		t.Errorf("top-p 0.3 picked %d", got)
	}
	// Same seed, same choices.
	a, b := NewSampler(0.8, 0.95, 40, 42), NewSampler(0.8, 0.95, 40, 42)
	for i := 0; i < 100; i++ {
		if a.Sample(logits) != b.Sample(logits) {
			t.Fatal("same seed, different draws")
		}
	}
}

func TestExp32(t *testing.T) {
	for x := float32(-87); x < 88; x += 0.0137 {
		got, want := float64(exp32(x)), math.Exp(float64(x))
		if math.Abs(got-want) > 3e-7*want {
			t.Fatalf("exp32(%v) = %v, want %v", x, got, want)
		}
	}
	if exp32(-100) != 0 || !math.IsInf(float64(exp32(100)), 1) {
		t.Error("range ends")
	}
}

func TestLogprobs(t *testing.T) {
	logits := []float32{1, 3, 2, 3, -1}
	// log-softmax, in float64
	var z float64
	for _, v := range logits {
		z += math.Exp(float64(v))
	}
	want := func(i int) float32 { return float32(float64(logits[i]) - math.Log(z)) }
	lp, top := Logprobs(logits, 2, 3)
	if math.Abs(float64(lp-want(2))) > 1e-6 {
		t.Errorf("logprob of token 2: %v, want %v", lp, want(2))
	}
	// 1 and 3 tie at the top: the lower id first
	if len(top) != 3 || top[0].Token != 1 || top[1].Token != 3 || top[2].Token != 2 {
		t.Fatalf("top 3: %+v", top)
	}
	for _, c := range top {
		if math.Abs(float64(c.Logprob-want(c.Token))) > 1e-6 {
			t.Errorf("token %d: %v, want %v", c.Token, c.Logprob, want(c.Token))
		}
	}
	if _, top := Logprobs(logits, 0, 0); top != nil {
		t.Errorf("no alternatives asked, got %+v", top)
	}
	if _, top := Logprobs(logits, 0, 50); len(top) != len(logits) {
		t.Errorf("more asked than the vocabulary: %d", len(top))
	}
}

// BenchmarkSample: one token drawn from 32,000 logits, at temperature 1
// (the server's default) and greedily.
func BenchmarkSample(b *testing.B) {
	r := rand.New(rand.NewPCG(5, 6))
	logits := make([]float32, 32000)
	for i := range logits {
		logits[i] = float32(r.NormFloat64()) * 3
	}
	for _, temp := range []float32{1, 0} {
		b.Run(fmt.Sprintf("temperature%g", temp), func(b *testing.B) {
			s := NewSampler(temp, 1, 0, 1)
			for i := 0; i < b.N; i++ {
				s.Sample(logits)
			}
		})
	}
}

// TestDrawAll: the blocked draw picks the token a plain running sum picks,
// at every vocabulary size around the block, and the last token for a
// mass the sum cannot reach, with the AVX-512 block sums and without.
func TestDrawAll(t *testing.T) {
	for _, wide := range []bool{true, false} {
		t.Run(fmt.Sprintf("avx512-%v", wide), func(t *testing.T) {
			defer setAVX512ForTest(wide)()
			testDrawAll(t)
		})
	}
}

func testDrawAll(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, n := range []int{1, 3, 63, 64, 65, 130, 1000, 32000} {
		p := make([]float32, n)
		total := 0.0
		for i := range p {
			p[i] = float32(rng.ExpFloat64())
			if rng.IntN(10) == 0 {
				p[i] = 0
			}
			total += float64(p[i])
		}
		for trial := 0; trial < 200; trial++ {
			r := rng.Float64() * total
			want, acc := n-1, 0.0
			for i, v := range p {
				acc += float64(v)
				if r < acc {
					want = i
					break
				}
			}
			if got := drawAll(p, r); got != want {
				t.Fatalf("n=%d r=%v: token %d, want %d", n, r, got, want)
			}
		}
		if got := drawAll(p, total*2); got != n-1 {
			t.Errorf("n=%d: a mass past the sum drew %d, want the last", n, got)
		}
	}
}
