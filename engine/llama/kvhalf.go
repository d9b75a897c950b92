package llama

import "github.com/tpsbench/tpsbench/engine/half"

// An F16 KV cache (Model.SetKVType) holds each key and value as
// llama.cpp's default cache does: rounded to the nearest F16. Its
// attention computes as llama.cpp's does over such a cache (without flash
// attention): the query is rounded to F16 before its products with the
// keys, and the softmax weights before theirs with the values; products
// and sums in float32. Half the bytes of an F32 cache: twice the
// sequences, or the context, in the same memory. (Not faster on the
// default model's batch of 32, whose attention is bound by the kernels'
// folding of sums more than by reading the cache: BenchmarkServedDecode
// .../kv-f16/... against the F32 rows.)

// halveRowGo is halveRow's portable form.
func halveRowGo(dst []uint16, src []float32) {
	dst = dst[:len(src)]
	for i, x := range src {
		dst[i] = half.FromFloat32(x)
	}
}

// roundHalfGo is roundHalf's portable form.
func roundHalfGo(x []float32) {
	for i, v := range x {
		x[i] = half.Table(half.FromFloat32(v))
	}
}

func scoresStridedHalfGo(q []float32, base []uint16, stride int, scale float32, out []float32) {
	for t := range out {
		out[t] = dotF16Go(base[t*stride:t*stride+len(q)], q) * scale
	}
}

func accumulateStridedHalfGo(a []float32, v []uint16, stride int, y []float32) {
	for t, w := range a {
		row := v[t*stride : t*stride+len(y)]
		for i := range y {
			y[i] += w * half.Table(row[i])
		}
	}
}
