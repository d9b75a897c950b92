//go:build amd64 && !purego

package llama

// SetPackingForTest turns the packed kernels off (or back on, where the
// CPU has them) for models loaded until restore is called, so that tests
// cover the kernels of machines without VNNI or AVX-512 on machines that
// have both.
func SetPackingForTest(on bool) (restore func()) {
	oldVNNI, oldFloats, oldAVX2 := vnni, packFloats, packAVX2
	vnni, packFloats, packAVX2 = on && oldVNNI, on && oldFloats, on && oldAVX2
	return func() { vnni, packFloats, packAVX2 = oldVNNI, oldFloats, oldAVX2 }
}

// setAVX512ForTest turns the AVX-512 kernels off (or back on, where the
// CPU has them) until restore is called, so that tests cover the AVX2
// ones on machines that have both.
func setAVX512ForTest(on bool) (restore func()) {
	old := avx512
	avx512 = on && old
	return func() { avx512 = old }
}
