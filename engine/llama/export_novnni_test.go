//go:build !amd64 || purego

package llama

// SetPackingForTest does nothing here: there are no packed kernels to
// turn off.
func SetPackingForTest(on bool) (restore func()) { return func() {} }

// setAVX512ForTest does nothing here: there are no AVX-512 kernels.
func setAVX512ForTest(on bool) (restore func()) { return func() {} }
