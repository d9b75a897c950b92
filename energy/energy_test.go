package energy

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/tpsbench/tpsbench/servermetrics"
)

// powercap writes a fake powercap tree: two packages (and a core
// subdomain, not counted), their counters in microjoules.
func powercap(t *testing.T, pkg0, pkg1 string) string {
	t.Helper()
	root := t.TempDir()
	for dir, files := range map[string]map[string]string{
		"intel-rapl:0":   {"name": "package-0\n", "energy_uj": pkg0, "max_energy_range_uj": "1000000000"},
		"intel-rapl:0:0": {"name": "core\n", "energy_uj": "999999999", "max_energy_range_uj": "1000000000"},
		"intel-rapl:1":   {"name": "package-1\n", "energy_uj": pkg1, "max_energy_range_uj": "2000000000"},
	} {
		os.MkdirAll(filepath.Join(root, dir), 0o755)
		for name, v := range files {
			os.WriteFile(filepath.Join(root, dir, name), []byte(v), 0o644)
		}
	}
	return root
}

// TestRAPL: the packages' counters summed in joules (the core subdomain
// left out); a step across a wrap counts the range once; a tree without
// counters says why.
func TestRAPL(t *testing.T) {
	root := powercap(t, "5000000", "7000000")
	r := RAPL{Root: root}
	if j, err := r.Read(context.Background()); err != nil || j != 12 {
		t.Fatalf("read %v J, %v; want 12", j, err)
	}
	w := Begin(context.Background(), r)
	os.WriteFile(filepath.Join(root, "intel-rapl:0", "energy_uj"), []byte("6000000"), 0o644)
	if u := w.End(context.Background()); u.Unavailable != "" || u.Joules != 1 {
		t.Errorf("a step of 1 J read %+v", u)
	}
	// package 0 wraps at 1000 J: from 999 J to 1 J is 2 J
	os.WriteFile(filepath.Join(root, "intel-rapl:0", "energy_uj"), []byte("999000000"), 0o644)
	w = Begin(context.Background(), r)
	os.WriteFile(filepath.Join(root, "intel-rapl:0", "energy_uj"), []byte("1000000"), 0o644)
	if u := w.End(context.Background()); u.Unavailable != "" || u.Joules != 2 {
		t.Errorf("a step across a wrap read %+v", u)
	}
	u := Begin(context.Background(), RAPL{Root: filepath.Join(root, "none")}).End(context.Background())
	if u.Unavailable == "" || u.Joules != 0 || !strings.Contains(u.Unavailable, "no RAPL counters") {
		t.Errorf("no tree read %+v", u)
	}
}

// TestDCGM: the GPUs' energy counters (mJ) summed in joules; the step's
// is their growth between two scrapes; an exporter without them says so.
func TestDCGM(t *testing.T) {
	var scrapes atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := scrapes.Add(1)
		fmt.Fprintf(w, "# TYPE DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION counter\n")
		fmt.Fprintf(w, "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION{gpu=\"0\",UUID=\"GPU-a\"} %d\n", 1000*n)
		fmt.Fprintf(w, "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION{gpu=\"1\",UUID=\"GPU-b\"} %d\n", 2000*n)
	}))
	defer srv.Close()
	d := DCGM{Scraper: &servermetrics.Scraper{URL: srv.URL}}
	w := Begin(context.Background(), d)
	if u := w.End(context.Background()); u.Unavailable != "" || u.Joules != 3 || u.Source != "DCGM (GPUs)" {
		t.Errorf("step %+v, want 3 J", u)
	}
	bare := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { fmt.Fprintln(w, "other 1") }))
	defer bare.Close()
	u := Begin(context.Background(), DCGM{Scraper: &servermetrics.Scraper{URL: bare.URL}}).End(context.Background())
	if !strings.Contains(u.Unavailable, "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION") {
		t.Errorf("no counter read %+v", u)
	}
}

// TestNvidiaSMI: a stand-in nvidia-smi that answers the query as the real
// one does (one line a GPU, with units) and counts its calls: two GPUs
// growing by 500 mJ and 2 J between the step's two reads spend 2.5 J; a
// GPU without the counter, or no nvidia-smi, leaves the step without a
// figure and says why.
func TestNvidiaSMI(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the stand-in is a shell script")
	}
	dir := t.TempDir()
	fake := func(name, body string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
			t.Fatal(err)
		}
		return path
	}
	calls := filepath.Join(dir, "calls")
	smi := fake("nvidia-smi", `[ "$1 $2" = "--query-gpu=total_energy_consumption --format=csv,noheader" ] || { echo "unexpected $*" >&2; exit 2; }
if [ -e `+calls+` ]; then echo "1500 mJ"; echo "4 J"; else touch `+calls+`; echo "1000 mJ"; echo "2 J"; fi
`)
	w := Begin(context.Background(), NvidiaSMI{Command: smi})
	if u := w.End(context.Background()); u.Unavailable != "" || math.Abs(u.Joules-2.5) > 1e-12 || u.Source != "nvidia-smi (GPUs)" {
		t.Errorf("step %+v, want 2.5 J", u)
	}
	old := fake("old-gpu", `echo "1000 mJ"; echo "[N/A]"`)
	if u := Begin(context.Background(), NvidiaSMI{Command: old}).End(context.Background()); !strings.Contains(u.Unavailable, "GPU 1 has no energy counter ([N/A]") {
		t.Errorf("a GPU without the counter: %+v", u)
	}
	if u := Begin(context.Background(), NvidiaSMI{Command: filepath.Join(dir, "absent")}).End(context.Background()); u.Unavailable == "" {
		t.Errorf("no nvidia-smi: %+v", u)
	}
	for _, bad := range []string{"", "12 W", "-3 J", "many mJ"} {
		if _, err := parseSMIEnergy(bad); err == nil {
			t.Errorf("%q read", bad)
		}
	}
	if j, err := parseSMIEnergy("2 kJ\n"); err != nil || j != 2000 {
		t.Errorf("kJ: %v %v", j, err)
	}
}

// TestMetersRefuseWhatIsNoCount: a counter read as NaN, Inf, a negative
// number or garbage (from an exporter, a powercap file or nvidia-smi)
// leaves the step without a figure, saying why, and never a NaN a report
// cannot write; a DCGM counter that falls between the reads (the driver
// reloaded) is a reset, not negative joules.
func TestMetersRefuseWhatIsNoCount(t *testing.T) {
	var reads []string // what the exporter answers, a read each, the last again
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		v := reads[0]
		if len(reads) > 1 {
			reads = reads[1:]
		}
		mu.Unlock()
		fmt.Fprintf(w, "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION{gpu=\"0\"} %s\n", v)
	}))
	defer srv.Close()
	d := DCGM{Scraper: &servermetrics.Scraper{URL: srv.URL}}
	step := func(before, after string) Use {
		mu.Lock()
		reads = []string{before, after}
		mu.Unlock()
		return Begin(context.Background(), d).End(context.Background())
	}
	for _, bad := range []string{"NaN", "+Inf", "-5"} {
		if u := step("1000", bad); u.Unavailable == "" || u.Joules != 0 {
			t.Errorf("a counter read as %s: %+v", bad, u)
		}
		if u := step(bad, "1000"); u.Unavailable == "" || u.Joules != 0 {
			t.Errorf("a counter first read as %s: %+v", bad, u)
		}
	}
	if u := step("12000", "3000"); !strings.Contains(u.Unavailable, "reset") {
		t.Errorf("a counter that fell read %+v", u)
	}
	if u := step("3000", "5000"); u.Unavailable != "" || u.Joules != 2 {
		t.Errorf("a counter of 3 J then 5 J read %+v, want 2 J", u)
	}
	garbage := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { fmt.Fprintln(w, "\x00\xff{{{") }))
	defer garbage.Close()
	if u := Begin(context.Background(), DCGM{Scraper: &servermetrics.Scraper{URL: garbage.URL}}).End(context.Background()); u.Unavailable == "" {
		t.Errorf("garbage read %+v", u)
	}
	for _, v := range []string{"NaN", "inf", "-1", "12x"} {
		root := powercap(t, v, "7000000")
		if u := Begin(context.Background(), RAPL{Root: root}).End(context.Background()); u.Unavailable == "" || !strings.Contains(u.Unavailable, "not a count") {
			t.Errorf("a powercap counter of %q read %+v", v, u)
		}
	}
	for _, out := range []string{"NaN mJ", "inf J", "-2 J"} {
		if _, err := parseSMIEnergy(out); err == nil {
			t.Errorf("nvidia-smi's %q read as a count", out)
		}
	}
}
