//go:build !linux

package roofline

// memoryGB is not known on this system.
func memoryGB() float64 { return 0 }
