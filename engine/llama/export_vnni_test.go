//go:build amd64 && !purego

package llama

// SetPackingForTest turns the packed kernels off (or back on, where the
// CPU has them) for models loaded until restore is called, so that tests
// cover the kernels of machines without VNNI or AVX-512 on machines that
// have both.
func SetPackingForTest(on bool) (restore func()) {
	oldVNNI, oldFloats, oldQ4 := vnni, packFloats, packQ4
	vnni, packFloats, packQ4 = on && oldVNNI, on && oldFloats, on && oldQ4
	return func() { vnni, packFloats, packQ4 = oldVNNI, oldFloats, oldQ4 }
}

// setAVX512ForTest turns the AVX-512 kernels off (or back on, where the
// CPU has them) until restore is called, so that tests cover the AVX2
// ones on machines that have both.
func setAVX512ForTest(on bool) (restore func()) {
	old := avx512
	avx512 = on && old
	return func() { avx512 = old }
}
