package main

import (
	"net/http"

	"github.com/tpsbench/tpsbench/client"
	"github.com/tpsbench/tpsbench/energy"
	"github.com/tpsbench/tpsbench/otlp"
	"github.com/tpsbench/tpsbench/servermetrics"
)

// smiMeter, given as --gpu-metrics, reads this machine's GPUs through
// nvidia-smi in place of a DCGM exporter.
const smiMeter = "nvidia-smi"

// energyMeter is the meter the flags ask for: the GPUs' (DCGM, or
// nvidia-smi) or the CPU packages' (RAPL), or none.
func (f *runFlags) energyMeter(headers http.Header) energy.Meter {
	switch {
	case f.gpuMetrics == smiMeter:
		return energy.NvidiaSMI{}
	case f.gpuMetrics != "":
		return energy.DCGM{Scraper: &servermetrics.Scraper{URL: f.gpuMetrics, Header: headers}}
	case f.cpuEnergy:
		return energy.RAPL{}
	}
	return nil
}

// checkMeters: the server's metrics and the energy meters the flags name
// are ones the run can read, and the collector it exports to one it can
// send to.
func checkMeters(f *runFlags, c *runConfig) error {
	if f.otelURL != "" {
		if _, _, err := otlp.Endpoints(f.otelURL); err != nil {
			return usagef("--otel-url: %v", err)
		}
	}
	if f.serverMet == "engine" && !c.embedded {
		return usagef("--server-metrics engine: no embedded engine runs (drop --url)")
	}
	if f.gpuMetrics != "" && f.cpuEnergy {
		return usagef("give --gpu-metrics or --cpu-energy, one meter a run")
	}
	if f.gpuMetrics != "" && f.gpuMetrics != smiMeter {
		if _, _, err := client.Endpoint(f.gpuMetrics, ""); err != nil {
			return usagef("--gpu-metrics: want the URL of the DCGM exporter's metrics, e.g. http://127.0.0.1:9400/metrics, or nvidia-smi")
		}
	}
	if f.serverMet != "" && f.serverMet != "engine" {
		if _, _, err := client.Endpoint(f.serverMet, ""); err != nil {
			return usagef("--server-metrics: want the URL of a Prometheus endpoint, e.g. http://127.0.0.1:8000/metrics")
		}
	}
	return nil
}
