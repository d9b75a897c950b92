package energy

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
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
