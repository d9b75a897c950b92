package roofline

import (
	"bufio"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestMemoryMatchesMeminfo: the RAM sysinfo(2) reports agrees with
// /proc/meminfo's MemTotal to within a percent.
func TestMemoryMatchesMeminfo(t *testing.T) {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		t.Skip("no /proc/meminfo")
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) == 3 && fields[0] == "MemTotal:" && fields[2] == "kB" {
			kb, err := strconv.ParseFloat(fields[1], 64)
			if err != nil {
				t.Fatal(err)
			}
			want := kb * 1024 / 1e9
			if got := memoryGB(); math.Abs(got-want) > 0.01*want {
				t.Fatalf("memory %.2f GB, /proc/meminfo says %.2f GB", got, want)
			}
			return
		}
	}
	t.Skip("no MemTotal in /proc/meminfo")
}
