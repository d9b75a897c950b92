// Package energy reads how much energy a machine's processors spent: the
// CPU packages' counters of Linux's powercap (RAPL), for the embedded
// engine, and NVIDIA GPUs' through the DCGM exporter or nvidia-smi. A
// step's joules over its output tokens are its energy per token; where no
// source can be read, the report says so rather than show 0.
package energy

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/tpsbench/tpsbench/servermetrics"
)

// Meter reads a cumulative energy counter, in joules.
type Meter interface {
	Read(ctx context.Context) (joules float64, err error)
	// Source names what is read, for the report.
	Source() string
}

// DefaultPowercap is where Linux shows RAPL's counters.
const DefaultPowercap = "/sys/class/powercap"

// RAPL reads the CPU packages' energy counters under a powercap tree:
// every top-level domain named package-N (intel-rapl:N; AMD's as well).
type RAPL struct {
	Root string // DefaultPowercap when empty
}

// Source implements Meter.
func (r RAPL) Source() string { return "RAPL (CPU packages, the client's work included)" }

// Read implements Meter: the packages' counters summed, in joules. A
// counter wraps at its max_energy_range_uj; Delta accounts for it.
func (r RAPL) Read(context.Context) (float64, error) {
	domains, err := r.packages()
	if err != nil {
		return 0, err
	}
	total := 0.0
	for _, d := range domains {
		uj, err := readNumber(filepath.Join(d, "energy_uj"))
		if err != nil {
			return 0, err
		}
		total += uj / 1e6
	}
	return total, nil
}

// Range is the joules after which the summed counters wrap (the smallest
// domain's range: a wrap shows as a fall).
func (r RAPL) Range() (float64, error) {
	domains, err := r.packages()
	if err != nil {
		return 0, err
	}
	lo := 0.0
	for i, d := range domains {
		uj, err := readNumber(filepath.Join(d, "max_energy_range_uj"))
		if err != nil {
			return 0, err
		}
		if i == 0 || uj/1e6 < lo {
			lo = uj / 1e6
		}
	}
	return lo, nil
}

// packages are the package domains' folders.
func (r RAPL) packages() ([]string, error) {
	root := r.Root
	if root == "" {
		root = DefaultPowercap
	}
	entries, err := os.ReadDir(root)
	if err != nil {
		return nil, fmt.Errorf("no RAPL counters here: %w", err)
	}
	var out []string
	for _, e := range entries {
		dir := filepath.Join(root, e.Name())
		name, err := os.ReadFile(filepath.Join(dir, "name"))
		if err != nil || !strings.HasPrefix(strings.TrimSpace(string(name)), "package") || strings.Count(e.Name(), ":") != 1 {
			continue // a subdomain (core, dram) or not RAPL's
		}
		out = append(out, dir)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no RAPL package domain under %s", root)
	}
	return out, nil
}

func readNumber(path string) (float64, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, fmt.Errorf("reading %s: %w", path, err) // often: readable by root alone
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(string(data)), 64)
	if err != nil || !(v >= 0) || math.IsInf(v, 1) { // NaN and Inf parse, and are no count
		return 0, fmt.Errorf("%s: %q is not a count", path, strings.TrimSpace(string(data)))
	}
	return v, nil
}

// DCGM reads NVIDIA's DCGM exporter: DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION
// (millijoules since the driver loaded), summed over the GPUs.
type DCGM struct {
	Scraper *servermetrics.Scraper // of the exporter's /metrics
}

// Source implements Meter.
func (d DCGM) Source() string { return "DCGM (GPUs)" }

// ErrNoEnergyMetric is what a scrape without DCGM's energy counter gives.
var ErrNoEnergyMetric = errors.New("the exporter has no DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION")

// Read implements Meter.
func (d DCGM) Read(ctx context.Context) (float64, error) {
	s, err := d.Scraper.Scrape(ctx)
	if err != nil {
		return 0, err
	}
	mj, ok := s["DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION"]
	if !ok {
		return 0, ErrNoEnergyMetric
	}
	if !(mj >= 0) || math.IsInf(mj, 1) {
		return 0, fmt.Errorf("the exporter's DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION is %v, not a count of millijoules", mj)
	}
	return mj / 1e3, nil
}
