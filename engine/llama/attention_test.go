package llama

import (
	"math"
	"testing"
)

// BenchmarkAttention runs the attention kernels (scores, then values) over
// the caches of a step of the default model (15m: 6 layers, 6 heads of
// 48, 88 cached positions each) at batch 32: once with every sequence's
// own cache, as served (67 MB in F32, past the core's caches), and once
// with one cache read 32 times over (2 MB). Their ratio is how much of
// attention's time is memory's. In F32 and in F16 (half the bytes; the
// query and the weights rounded to F16 first, as a step does).
func BenchmarkAttention(b *testing.B) {
	const kvDim, hd, heads, positions, capacity, layers, batch = 288, 48, 6, 88, 152, 6, 32
	for _, kv := range []string{"f32", "f16"} {
		for _, c := range []struct {
			name   string
			caches int
		}{{"own-caches", batch}, {"one-cache", 1}} {
			b.Run(kv+"/"+c.name, func(b *testing.B) {
				k, v := make([][]float32, c.caches*layers), make([][]float32, c.caches*layers)
				k16, v16 := make([][]uint16, c.caches*layers), make([][]uint16, c.caches*layers)
				for i := range k {
					k[i], v[i] = make([]float32, capacity*kvDim), make([]float32, capacity*kvDim)
					for j := range k[i] {
						k[i][j], v[i][j] = float32(j%7)*0.01, float32(j%5)*0.01
					}
					if kv == "f16" {
						k16[i], v16[i] = make([]uint16, len(k[i])), make([]uint16, len(v[i]))
						halveRow(k16[i], k[i])
						halveRow(v16[i], v[i])
						k[i], v[i] = nil, nil
					}
				}
				q, scores, out := make([]float32, hd), make([]float32, positions), make([]float32, hd)
				for b.Loop() {
					for seq := range batch {
						for l := range layers {
							at := (seq%c.caches)*layers + l
							for h := range heads {
								if kv == "f16" {
									roundHalf(q)
									scoresStridedHalf(q, k16[at][h*hd:], kvDim, 0.1, scores)
									roundHalf(scores)
									accumulateStridedHalf(scores, v16[at][h*hd:], kvDim, out)
								} else {
									scoresStrided(q, k[at][h*hd:], kvDim, 0.1, scores)
									accumulateStrided(scores, v[at][h*hd:], kvDim, out)
								}
							}
						}
					}
				}
				elem := 4
				if kv == "f16" {
					elem = 2
				}
				read := 2 * batch * layers * heads * positions * hd * elem
				b.ReportMetric(float64(read)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GB/s")
			})
		}
	}
}

// TestRopeAnglesTakePowersFromTheTable: the angles a step computes with
// the model's table of powers are those of ropeAngle, bit for bit, for
// plain, scaled, per-pair-frequency, YaRN and sliding-window RoPE.
func TestRopeAnglesTakePowersFromTheTable(t *testing.T) {
	plain := Config{RopeDim: 64, RopeBase: 10000, RopeScale: 1, RopeBaseSWA: 10000}
	scaled := plain
	scaled.RopeScale, scaled.RopeFreqs = 0.25, make([]float32, 32)
	for i := range scaled.RopeFreqs {
		scaled.RopeFreqs[i] = 1 + float32(i)/8
	}
	yarn := plain
	yarn.RopeScale, yarn.RopeYaRN, yarn.RopeYaRNDims, yarn.RopeAttnFactor = 0.125, true, [2]float32{4, 20}, 1.1
	sliding := plain
	sliding.RopeBase, sliding.RopeBaseSWA = 1e6, 1e4
	for name, c := range map[string]Config{"plain": plain, "scaled": scaled, "yarn": yarn, "sliding": sliding} {
		for _, slides := range []bool{false, true} {
			pows := c.ropePows(slides)
			cs := make([]float32, c.RopeDim)
			for _, pos := range []int{0, 1, 7, 1000, 40000} {
				ropeAngles(cs, &c, pos, slides, pows)
				for i := 0; i < c.RopeDim; i += 2 {
					theta, mag := c.ropeAngle(pos, i, slides)
					sin, cos := math.Sincos(theta)
					if cs[i] != float32(cos*mag) || cs[i+1] != float32(sin*mag) {
						t.Fatalf("%s slides=%v pos %d pair %d: %v, %v; ropeAngle gives %v, %v", name, slides, pos, i/2, cs[i], cs[i+1], float32(cos*mag), float32(sin*mag))
					}
				}
			}
		}
	}
}
