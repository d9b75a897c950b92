//go:build !amd64 || purego

package llama

// SetPackingForTest does nothing here: there are no packed kernels to
// turn off.
func SetPackingForTest(on bool) (restore func()) { return func() {} }
