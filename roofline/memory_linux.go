package roofline

import "syscall"

// memoryGB is the machine's RAM as the kernel reports it, or 0.
func memoryGB() float64 {
	var si syscall.Sysinfo_t
	if syscall.Sysinfo(&si) != nil {
		return 0
	}
	return float64(si.Totalram) * float64(si.Unit) / 1e9
}
