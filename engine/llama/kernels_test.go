package llama

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/tpsbench/tpsbench/engine/half"
)

// TestKernelsAgreeWithPortableLoops checks the kernels in use (assembly on
// amd64 unless built with -tags purego) against the portable loops, on
// random data of several lengths, with the AVX-512 kernels and without
// (where both would run, the AVX2 ones were otherwise left untested).
// Integer parts are exact; float sums differ by summation order only,
// about 1e-6 relative.
func TestKernelsAgreeWithPortableLoops(t *testing.T) {
	t.Logf("kernels: %s", Kernels())
	for _, wide := range []bool{true, false} {
		t.Run(fmt.Sprintf("avx512-%v", wide), func(t *testing.T) {
			defer setAVX512ForTest(wide)()
			testKernels(t)
		})
	}
}

func testKernels(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{32, 64, 288, 768, 2048, 100} {
		a, b := make([]float32, n), make([]float32, n)
		h := make([]uint16, n)
		for i := range a {
			a[i], b[i] = r.Float32()*2-1, r.Float32()*2-1
			h[i] = half.FromFloat32(a[i])
		}
		check := func(name string, got, want float32, scale float64) {
			t.Helper()
			if d := math.Abs(float64(got - want)); d > 1e-5*scale {
				t.Errorf("%s n=%d: %v, portable %v", name, n, got, want)
			}
		}
		check("f32", dotF32(a, b), dotF32Go(a, b), math.Sqrt(float64(n)))
		y1, y2 := append([]float32(nil), b...), append([]float32(nil), b...)
		axpy(0.37, a, y1)
		axpyGo(0.37, a, y2)
		for i := range y1 {
			check("axpy", y1[i], y2[i], 1)
		}
		g1, g2 := make([]float32, n), make([]float32, n)
		for i := range g1 {
			g1[i] = (r.Float32()*2 - 1) * 12
		}
		g1[0], g1[n-1] = 95, -95 // past exp's float32 range either way
		copy(g2, g1)
		siluMul(g1, b)
		siluMulGo(g2, b)
		for i := range g1 {
			check("silu", g1[i], g2[i], 1+math.Abs(float64(g2[i])))
		}
		if n >= 8 { // strided rows (cached keys and values) against one vector, as attention reads them
			for _, rowsN := range []int{1, 4, 7, 16, 33, 55} { // 16 at a time, 4 at a time, one at a time
				hd := n / 4
				rows := make([]float32, rowsN*n)
				for i := range rows {
					rows[i] = r.Float32()*2 - 1
				}
				s1, s2 := make([]float32, rowsN), make([]float32, rowsN)
				scoresStrided(b[:hd], rows, n, 0.3, s1)
				scoresStridedGo(b[:hd], rows, n, 0.3, s2)
				for i := range s1 {
					check("scores", s1[i], s2[i], math.Sqrt(float64(hd)))
				}
				y1, y2 = append(y1[:0], b[:hd]...), append(y2[:0], b[:hd]...)
				accumulateStrided(s2, rows, n, y1)
				accumulateStridedGo(s2, rows, n, y2)
				for i := range y1 {
					check("accumulate", y1[i], y2[i], float64(rowsN))
				}
			}
		}
		check("f16", dotF16(h, b), dotF16Go(h, b), math.Sqrt(float64(n)))
		if n%32 != 0 {
			continue
		}
		var x q8Vec
		x.quantize(b)
		q8 := QuantizeQ8_0(nil, a)
		q4 := QuantizeQ4_0(nil, a)
		check("q8_0", dotQ8(q8, &x), dotQ8Go(q8, &x), math.Sqrt(float64(n)))
		check("q4_0", dotQ4(q4, &x), dotQ4Go(q4, &x), math.Sqrt(float64(n)))
	}
	// Extremes: weights at +-127 and activations at +-127 must not saturate.
	row := make([]byte, 0, q8Bytes)
	row = binary.LittleEndian.AppendUint16(row, half.FromFloat32(1))
	for i := 0; i < qk; i++ {
		row = append(row, byte(int8(127)))
	}
	x := q8Vec{q: make([]int8, qk), d: []float32{1}}
	for i := range x.q {
		x.q[i] = 127
	}
	if got := dotQ8(row, &x); got != 32*127*127 {
		t.Errorf("extreme Q8_0 dot %v, want %v", got, 32*127*127)
	}
}

func BenchmarkDot(b *testing.B) {
	n := 2048
	r := rand.New(rand.NewPCG(1, 2))
	a, v := make([]float32, n), make([]float32, n)
	for i := range a {
		a[i], v[i] = r.Float32(), r.Float32()
	}
	var x q8Vec
	x.quantize(v)
	q8, q4 := QuantizeQ8_0(nil, a), QuantizeQ4_0(nil, a)
	b.Run("q8_0", func(b *testing.B) {
		for b.Loop() {
			dotQ8(q8, &x)
		}
	})
	b.Run("q4_0", func(b *testing.B) {
		for b.Loop() {
			dotQ4(q4, &x)
		}
	})
	b.Run("f32", func(b *testing.B) {
		for b.Loop() {
			dotF32(a, v)
		}
	})
}

// TestBatchKernelsAgree checks the four-inputs-at-once path of rowsBatch
// against one product at a time with the portable loops.
func TestBatchKernelsAgree(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	const rows, cols, batch = 5, 96, 6
	w := make([]float32, rows*cols)
	for i := range w {
		w[i] = r.Float32()*2 - 1
	}
	x := make([]float32, batch*cols)
	for i := range x {
		x[i] = r.Float32()*2 - 1
	}
	var q8, q4 []byte
	h := make([]uint16, len(w))
	for i, v := range w {
		h[i] = half.FromFloat32(v)
	}
	for i := 0; i < rows; i++ {
		q8 = QuantizeQ8_0(q8, w[i*cols:(i+1)*cols])
		q4 = QuantizeQ4_0(q4, w[i*cols:(i+1)*cols])
	}
	mats := []*Matrix{
		{Type: typeF32, Rows: rows, Cols: cols, f32: w, rowBytes: 4 * cols},
		{Type: typeF16, Rows: rows, Cols: cols, f16: h, rowBytes: 2 * cols},
		{Type: typeQ8_0, Rows: rows, Cols: cols, q: q8, rowBytes: cols / qk * q8Bytes},
		{Type: typeQ4_0, Rows: rows, Cols: cols, q: q4, rowBytes: cols / qk * q4Bytes},
	}
	for _, m := range mats {
		ins := make([]vecInput, batch)
		scratch := make([]float32, batch*cols) // F16's rounded inputs, side by side as in a step
		for b := range ins {
			ins[b].prepare(x[b*cols:(b+1)*cols], inputForm(m), scratch[b*cols:(b+1)*cols])
		}
		out := make([]float32, batch*rows)
		m.rowsBatch(out, ins, 0, rows)
		for b := 0; b < batch; b++ {
			for row := 0; row < rows; row++ {
				var want float32
				switch m.Type {
				case typeF32:
					want = dotF32Go(w[row*cols:(row+1)*cols], ins[b].f)
				case typeF16:
					want = dotF16Go(h[row*cols:(row+1)*cols], ins[b].f)
				case typeQ8_0:
					want = dotQ8Go(q8[row*m.rowBytes:(row+1)*m.rowBytes], &ins[b].q8)
				case typeQ4_0:
					want = dotQ4Go(q4[row*m.rowBytes:(row+1)*m.rowBytes], &ins[b].q8)
				}
				if d := math.Abs(float64(out[b*rows+row] - want)); d > 1e-5*math.Sqrt(cols) {
					t.Errorf("%s input %d row %d: %v, want %v", m.Type, b, row, out[b*rows+row], want)
				}
			}
		}
	}
}

// TestQuantizeMatchesPortable: the assembly quantizer gives the portable
// one's quants, scales and biases bit for bit, halves and zeros included.
func TestQuantizeMatchesPortable(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	x := make([]float32, 64*qk)
	for i := range x {
		x[i] = float32(rng.NormFloat64()) * float32(1+i%7)
	}
	// a block whose largest value is 127: quants are the values, and the
	// halves among them show the rounding
	for j := 0; j < qk; j++ {
		x[qk+j] = float32(j) - 15.5
	}
	x[qk] = 127
	clear(x[2*qk : 3*qk])                     // zeros
	x[3*qk+5] = -1e-30                        // a scale below f16's range
	x[4*qk+1] = 3e4                           // a large one
	x[5*qk+2] = float32(math.Copysign(0, -1)) // and a negative zero among zeros (float32(-0.0) is +0 in Go)
	var a, b q8Vec
	a.quantize(x)
	b.q, b.d, b.bias = make([]int8, len(x)), make([]float32, len(x)/qk), make([]int32, len(x)/qk)
	b.quantizeGo(x)
	for i := range a.q {
		if a.q[i] != b.q[i] {
			t.Fatalf("quant %d (block %d): %d, portable %d (x %v, scale %v)", i, i/qk, a.q[i], b.q[i], x[i], b.d[i/qk])
		}
	}
	for i := range a.d {
		if math.Float32bits(a.d[i]) != math.Float32bits(b.d[i]) || a.bias[i] != b.bias[i] {
			t.Fatalf("block %d: scale %v bias %d, portable %v %d", i, a.d[i], a.bias[i], b.d[i], b.bias[i])
		}
	}
}

// TestMaxAndArgmax: the vector maximum and the first index holding it
// agree with a plain scan, at every length around the vector widths, with
// ties and infinities.
func TestMaxAndArgmax(t *testing.T) {
	for _, wide := range []bool{true, false} {
		t.Run(fmt.Sprintf("avx512-%v", wide), func(t *testing.T) {
			defer setAVX512ForTest(wide)()
			testMaxAndArgmax(t)
		})
	}
}

func testMaxAndArgmax(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for n := 1; n < 140; n++ {
		for trial := 0; trial < 4; trial++ {
			x := make([]float32, n)
			for i := range x {
				x[i] = float32(rng.NormFloat64()) * 10
				if trial == 1 {
					x[i] = float32(rng.IntN(3)) // ties
				}
			}
			if trial == 2 {
				x[rng.IntN(n)] = float32(math.Inf(-1))
			}
			if trial == 3 {
				x[rng.IntN(n)] = float32(math.Inf(1))
			}
			want, wantAt := x[0], 0
			for i, v := range x {
				if v > want {
					want, wantAt = v, i
				}
			}
			if got := maxF32(x); got != want {
				t.Fatalf("n=%d trial %d: max %v, want %v", n, trial, got, want)
			}
			if got := argmax(x); got != wantAt {
				t.Fatalf("n=%d trial %d: argmax %d, want %d", n, trial, got, wantAt)
			}
			v := x[rng.IntN(n)]
			first := slices.Index(x, v)
			if got := indexF32(x, v); got != first {
				t.Fatalf("n=%d trial %d: index of %v %d, want %d", n, trial, v, got, first)
			}
			if got := indexF32(x, float32(math.NaN())); got != -1 {
				t.Fatalf("n=%d trial %d: NaN found at %d", n, trial, got)
			}
		}
	}
}

// TestActivationQuantsRoundHalvesToEven: activations quantize as
// llama.cpp's AVX builds do (_mm256_round_ps, nearest even), not as C's
// roundf: in a block whose largest value is 127 the quants of the
// halves are the even neighbours, on every kernel path.
func TestActivationQuantsRoundHalvesToEven(t *testing.T) {
	x := make([]float32, qk)
	x[0] = 127
	halves := []float32{0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 126.5, -3.5}
	want := []int8{0, 2, 2, 0, -2, -2, 126, -4}
	copy(x[1:], halves)
	for _, wide := range []bool{true, false} {
		t.Run(fmt.Sprintf("avx512-%v", wide), func(t *testing.T) {
			defer setAVX512ForTest(wide)()
			var v q8Vec
			v.quantize(x)
			for i, w := range want {
				if v.q[1+i] != w {
					t.Errorf("%v quantized to %d, want %d", halves[i], v.q[1+i], w)
				}
			}
			if v.d[0] != 1 {
				t.Errorf("scale %v, want 1", v.d[0])
			}
		})
	}
}
