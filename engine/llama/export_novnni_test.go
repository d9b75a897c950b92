//go:build !amd64 || purego

package llama

// SetVNNIForTest does nothing here: there are no VNNI kernels to turn off.
func SetVNNIForTest(on bool) (restore func()) { return func() {} }
