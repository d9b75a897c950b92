//go:build amd64 && !purego

package llama

// SetVNNIForTest turns the packed VNNI kernels off (or back on, where the
// CPU has them) for models loaded until restore is called, so that tests
// cover the AVX2 path on machines that have both.
func SetVNNIForTest(on bool) (restore func()) {
	old := vnni
	vnni = on && old
	return func() { vnni = old }
}
