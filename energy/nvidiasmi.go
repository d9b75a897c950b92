package energy

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os/exec"
	"strconv"
	"strings"
)

// NvidiaSMI reads this machine's GPUs' energy counters through nvidia-smi
// (NVML's total energy since the driver loaded, Volta and newer), summed
// over the GPUs: for a server on this machine with no DCGM exporter.
type NvidiaSMI struct {
	Command string // "nvidia-smi" (found on PATH) when empty
}

// Source implements Meter.
func (n NvidiaSMI) Source() string { return "nvidia-smi (GPUs)" }

// Read implements Meter. The query is given with its units, which are
// read rather than assumed (NVML counts millijoules).
func (n NvidiaSMI) Read(ctx context.Context) (float64, error) {
	cmd := n.Command
	if cmd == "" {
		cmd = "nvidia-smi"
	}
	out, err := exec.CommandContext(ctx, cmd, "--query-gpu=total_energy_consumption", "--format=csv,noheader").Output()
	if err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) && len(exit.Stderr) > 0 {
			return 0, fmt.Errorf("%s: %v: %s", cmd, err, strings.TrimSpace(string(exit.Stderr)))
		}
		return 0, fmt.Errorf("%s: %w", cmd, err)
	}
	return parseSMIEnergy(string(out))
}

// parseSMIEnergy sums nvidia-smi's energy lines, one a GPU ("123456 mJ").
func parseSMIEnergy(out string) (float64, error) {
	total, gpus := 0.0, 0
	for i, line := range strings.Split(strings.TrimSpace(out), "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		value, unit, _ := strings.Cut(line, " ")
		scale, known := map[string]float64{"mJ": 1e-3, "J": 1, "kJ": 1e3}[strings.TrimSpace(unit)]
		v, err := strconv.ParseFloat(value, 64)
		switch {
		case strings.HasPrefix(line, "["):
			return 0, fmt.Errorf("nvidia-smi: GPU %d has no energy counter (%s; Volta and newer have one)", i, line)
		case err != nil || !known || !(v >= 0) || math.IsInf(v, 1):
			return 0, fmt.Errorf("nvidia-smi: GPU %d's energy %q is not a count in mJ, J or kJ", i, line)
		}
		total += v * scale
		gpus++
	}
	if gpus == 0 {
		return 0, errors.New("nvidia-smi lists no GPU")
	}
	return total, nil
}
