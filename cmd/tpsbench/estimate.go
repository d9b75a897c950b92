package main

import (
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/tpsbench/tpsbench/engine"
	"github.com/tpsbench/tpsbench/metrics"
	"github.com/tpsbench/tpsbench/roofline"
)

type estimateFlags struct {
	model, dtype, kvDtype, hardware, batches, records string
	context, threads                                  int
}

func newEstimateCmd() *cobra.Command {
	var ef estimateFlags
	cmd := &cobra.Command{
		Use:   "estimate",
		Short: "Theoretical decode TPS (the roofline): memory bandwidth / bytes read a step, against compute",
		Example: `  tpsbench estimate --model llama-3-8b --dtype f16 --hardware h100-sxm,a100-80gb
  tpsbench estimate --model mixtral-8x7b --dtype int4 --hardware rtx-4090 --batch 1,8,32
  tpsbench estimate --model 110m --dtype q8_0 --hardware this
  tpsbench estimate --model 15m --hardware this --records run.jsonl   # measured / bound`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runEstimate(cmd, &ef) },
	}
	f := cmd.Flags()
	f.StringVar(&ef.model, "model", "llama-3-8b", "a catalogue model, a built-in shape (15m, 110m) or a GGUF file")
	f.StringVar(&ef.dtype, "dtype", "", "weight format: f32, f16, bf16, int8, fp8, q8_0, int4, q4_0 (default: f32 for a built-in shape, as the engine makes it; f16 for a catalogue model; a GGUF file has its own)")
	f.StringVar(&ef.kvDtype, "kv-dtype", "", "KV cache element format (default: f32 for a built-in shape or a GGUF file, as the engine keeps it; f16 for a catalogue model, as GPU servers do)")
	f.StringVar(&ef.hardware, "hardware", "h100-sxm", "comma-separated hardware names, or 'this' to measure this machine")
	f.StringVar(&ef.batches, "batch", "1,4,8,16,32", "batch sizes")
	f.IntVar(&ef.context, "context", 1024, "tokens each sequence holds in its KV cache")
	f.IntVar(&ef.threads, "threads", 0, "threads for measuring this machine (default: all cores)")
	f.StringVar(&ef.records, "records", "", "a records file whose steps to set against the bound of the first hardware")
	return cmd
}

func runEstimate(cmd *cobra.Command, ef *estimateFlags) error {
	bs, err := parseLevels(ef.batches)
	if err != nil {
		return usagef("--batch %q: want sizes such as 1,4,16", ef.batches)
	}
	base, err := ef.baseCase()
	if err != nil {
		return err
	}
	hws, err := ef.hardwareList()
	if err != nil {
		return err
	}
	w := cmd.OutOrStdout()
	m := base.Model
	fmt.Fprintf(w, "Model: %s (%.3g B parameters", m.Name, m.Params/1e9)
	if m.Active > 0 {
		fmt.Fprintf(w, ", %.3g B active", m.Active/1e9)
	}
	fmt.Fprintf(w, "), weights %s, KV cache %s, context %d tokens a sequence\n", dtypeLabel(ef.dtype, base.WeightBytes), ef.kvDtype, ef.context)
	if err := printBounds(w, base, hws, bs, ef.bandwidthAt()); err != nil {
		return err
	}
	if ef.records == "" {
		return nil
	}
	return printMeasured(cmd, ef.records, base, hws[0])
}

// baseCase is the model, its formats and the context, with hardware and
// batch left to set.
func (ef *estimateFlags) baseCase() (roofline.Case, error) {
	// the engine's formats for what the engine runs (estimate said f16
	// beside a run of the engine's f32 weights and cache)
	format := "f16"
	if _, err := roofline.FindModel(ef.model); err != nil {
		format = "f32" // a built-in shape or a GGUF file: what the engine runs
	}
	if ef.kvDtype == "" {
		ef.kvDtype = format
	}
	if ef.dtype == "" {
		ef.dtype = format
	}
	kvb, ok := roofline.Formats[strings.ToLower(ef.kvDtype)]
	if !ok {
		return roofline.Case{}, usagef("--kv-dtype %q: want f16, f32, int8 or fp8", ef.kvDtype)
	}
	m, weightBytes, err := estimateModel(ef.model, ef.dtype)
	if err != nil {
		return roofline.Case{}, err
	}
	bpp := 0.0
	if weightBytes == 0 {
		if bpp, ok = roofline.Formats[strings.ToLower(ef.dtype)]; !ok {
			return roofline.Case{}, usagef("--dtype %q: want f32, f16, bf16, int8, fp8, q8_0, int4 or q4_0", ef.dtype)
		}
	}
	if ef.context < 0 {
		return roofline.Case{}, usagef("--context must not be negative")
	}
	return roofline.Case{Model: m, BytesPerParam: bpp, KVBytes: kvb, Context: ef.context, WeightBytes: weightBytes}, nil
}

// hardwareList reads --hardware: catalogue names, or "this", measured.
func (ef *estimateFlags) hardwareList() ([]roofline.Hardware, error) {
	var hws []roofline.Hardware
	for _, name := range strings.Split(ef.hardware, ",") {
		name = strings.TrimSpace(name)
		if name == "this" {
			h, err := roofline.ThisMachine(ef.threads)
			if err != nil {
				return nil, err
			}
			hws = append(hws, h)
			continue
		}
		h, err := roofline.FindHardware(name)
		if err != nil {
			return nil, usageError{err}
		}
		hws = append(hws, h)
	}
	return hws, nil
}

// bandwidthAt measures this machine's bandwidth at a step's bytes (the
// engine's product over that many, so that what the caches hold of a
// small model is read at their speed), once for each size in MiB.
func (ef *estimateFlags) bandwidthAt() func(bytes float64) float64 {
	seen := map[int]float64{}
	return func(bytes float64) float64 {
		mib := max(1, int(math.Round(min(bytes, 256<<20)/(1<<20))))
		if bw, ok := seen[mib]; ok {
			return bw
		}
		bw, err := roofline.MeasureBandwidth(ef.threads, mib<<20)
		if err != nil {
			bw = 0 // not known: the bound over memory stands
		}
		seen[mib] = bw
		return bw
	}
}

// printBounds writes the bound of each hardware and batch, and which rows
// would not fit in the hardware's memory. For this machine each row's
// bandwidth is measured at its step's bytes (bandwidthAt).
func printBounds(w io.Writer, c roofline.Case, hws []roofline.Hardware, batches []int, bandwidthAt func(float64) float64) error {
	tw := tabwriter.NewWriter(w, 2, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "hardware\tbandwidth GB/s\tbatch\tweights MB\tKV MB\tmemory-bound TPS\tcompute-bound TPS\tbinds\tsystem TPS\tper-request TPS\tfits\t\n")
	overflow := false
	var capacity []string
	for _, h := range hws {
		c.Hardware = h
		for _, b := range batches {
			c.Batch = b
			e := c.Run()
			if h.Name == "this" && bandwidthAt != nil {
				if bw := bandwidthAt(e.WeightBytes + e.KVBytes); bw > 0 {
					c.Hardware.Bandwidth = bw
					e = c.Run()
				}
			}
			fits := "?"
			if ok, known := e.Fits(h); known && ok {
				fits = "yes"
			} else if known {
				fits, overflow = "NO", true
			}
			fmt.Fprintf(tw, "%s\t%.0f\t%d\t%.1f\t%.1f\t%.1f\t%.1f\t%s\t%.1f\t%.1f\t%s\t\n", h.Name, c.Hardware.Bandwidth, b, e.WeightBytes/1e6, e.KVBytes/1e6,
				float64(b)/e.MemoryStepS, float64(b)/e.ComputeStepS, e.Binds, e.SystemTPS, e.PerRequestTPS, fits)
		}
		if n, bounded := c.MaxBatch(); bounded {
			capacity = append(capacity, fmt.Sprintf("%s: its %.0f GB hold the weights and at most %d sequences of %d tokens", h.Name, h.MemoryGB, n, c.Context))
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if overflow {
		fmt.Fprintln(w, "Rows marked NO need more memory than the hardware has (weights and KV cache): their figures are what its bandwidth would give, not what would run.")
	}
	for _, h := range hws {
		if h.Name == "this" && bandwidthAt != nil {
			fmt.Fprintf(w, "Bandwidth of this machine: the engine's own batch-1 products read over each row's bytes, so that what its last-level cache (%.0f MB) holds of a small model is read at the cache's speed; %.0f GB/s over 256 MiB.\n",
				roofline.LastLevelCache()/1e6, h.Bandwidth)
		}
	}

	if len(capacity) > 0 {
		fmt.Fprintf(w, "Memory (an upper bound: servers keep some for activations):\n  %s\n", strings.Join(capacity, "\n  "))
	}
	return nil
}

// printMeasured sets each step of a records file against the bound of h
// at the step's concurrency.
func printMeasured(cmd *cobra.Command, records string, c roofline.Case, h roofline.Hardware) error {
	steps := metrics.NewSteps(metrics.Targets{})
	if err := readRecords(records, cmd.ErrOrStderr(), steps.Add); err != nil {
		return err
	}
	w := cmd.OutOrStdout()
	fmt.Fprintf(w, "\nMeasured (%s) against the %s bound:\n", records, h.Name)
	tw := tabwriter.NewWriter(w, 2, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "step\tconcurrency\tmeasured system TPS\tbound\tefficiency\t\n")
	c.Hardware = h
	for _, s := range steps.Summaries() {
		c.Batch = max(s.Concurrency, 1)
		e := c.Run()
		fmt.Fprintf(tw, "%s\t%d\t%.1f\t%.1f\t%.0f%%\t\n", s.Label, c.Batch, s.SystemTPS, e.SystemTPS, 100*s.SystemTPS/e.SystemTPS)
	}
	return tw.Flush()
}

func dtypeLabel(dtype string, fileBytes float64) string {
	if fileBytes > 0 {
		return fmt.Sprintf("as in the file (%.1f MB a step)", fileBytes/1e6)
	}
	return dtype
}

// estimateModel resolves a catalogue name, a built-in shape (made with dtype) or a
// GGUF file; for the latter two it also returns the exact bytes a step reads.
func estimateModel(name, dtype string) (roofline.Model, float64, error) {
	if m, err := roofline.FindModel(name); err == nil {
		return m, 0, nil
	}
	if !slices.Contains(engine.ShapeNames(), name) {
		if _, err := os.Stat(name); err != nil {
			_, err := roofline.FindModel(name)
			return roofline.Model{}, 0, usageError{err}
		}
		dtype = "" // a file's own
	} else if err := (engine.Options{Model: name, Format: dtype}).Validate(); err != nil {
		return roofline.Model{}, 0, usagef("--dtype %q for a built-in shape: %v", dtype, err)
	}
	d, err := engine.Describe(name, dtype, 1)
	if err != nil {
		return roofline.Model{}, 0, err
	}
	if dtype != "" {
		name = strings.TrimPrefix(d.Name, "tpsbench-")
	}
	c := d.Config
	return roofline.Model{Name: name, Params: float64(d.Params), Layers: c.Layers, Heads: c.Heads, KVHeads: c.KVHeads, HeadDim: c.HeadDim()},
		float64(d.BytesPerToken), nil
}
