package roofline

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// LastLevelCache is the size in bytes of the largest cache the first CPU
// reports (its last level), or 0 when the kernel says none.
func LastLevelCache() float64 {
	dirs, _ := filepath.Glob("/sys/devices/system/cpu/cpu0/cache/index*")
	best := 0.0
	for _, d := range dirs {
		b, err := os.ReadFile(filepath.Join(d, "size"))
		if err != nil {
			continue
		}
		best = max(best, cacheSize(string(b)))
	}
	return best
}

// cacheSize reads a sysfs cache size ("32768K", "1M", "512"), or 0.
func cacheSize(s string) float64 {
	s = strings.TrimSpace(s)
	mult := 1.0
	switch {
	case strings.HasSuffix(s, "K"):
		s, mult = strings.TrimSuffix(s, "K"), 1<<10
	case strings.HasSuffix(s, "M"):
		s, mult = strings.TrimSuffix(s, "M"), 1<<20
	}
	n, err := strconv.ParseFloat(s, 64)
	if err != nil || !(n >= 0) {
		return 0
	}
	return n * mult
}
