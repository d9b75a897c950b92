package main

import (
	"fmt"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/tpsbench/tpsbench/engine/gguf"
	"github.com/tpsbench/tpsbench/engine/llama"
	"github.com/tpsbench/tpsbench/engine/synth"
	"github.com/tpsbench/tpsbench/metrics"
	"github.com/tpsbench/tpsbench/roofline"
)

func newEstimateCmd() *cobra.Command {
	var model, dtype, kvDtype, hardware, batches, records string
	var context, threads int
	cmd := &cobra.Command{
		Use:   "estimate",
		Short: "Theoretical decode TPS (the roofline): memory bandwidth / bytes read a step, against compute",
		Example: `  tpsbench estimate --model llama-3-8b --dtype f16 --hardware h100-sxm,a100-80gb
  tpsbench estimate --model mixtral-8x7b --dtype int4 --hardware rtx-4090 --batch 1,8,32
  tpsbench estimate --model 110m --dtype q8_0 --hardware this
  tpsbench estimate --model 15m --hardware this --records run.jsonl   # measured / bound`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			bs, err := parseLevels(batches)
			if err != nil {
				return usagef("--batch %q: want sizes such as 1,4,16", batches)
			}
			kvb, ok := roofline.Formats[strings.ToLower(kvDtype)]
			if !ok {
				return usagef("--kv-dtype %q: want f16, f32, int8 or fp8", kvDtype)
			}
			m, weightBytes, err := estimateModel(model, dtype)
			if err != nil {
				return err
			}
			bpp := 0.0
			if weightBytes == 0 {
				if bpp, ok = roofline.Formats[strings.ToLower(dtype)]; !ok {
					return usagef("--dtype %q: want f32, f16, bf16, int8, fp8, q8_0, int4 or q4_0", dtype)
				}
			}
			if context < 0 {
				return usagef("--context must not be negative")
			}
			var hws []roofline.Hardware
			for _, name := range strings.Split(hardware, ",") {
				name = strings.TrimSpace(name)
				if name == "this" {
					hws = append(hws, roofline.ThisMachine(threads))
					continue
				}
				h, err := roofline.FindHardware(name)
				if err != nil {
					return usageError{err}
				}
				hws = append(hws, h)
			}
			w := cmd.OutOrStdout()
			fmt.Fprintf(w, "Model: %s (%.3g B parameters", m.Name, m.Params/1e9)
			if m.Active > 0 {
				fmt.Fprintf(w, ", %.3g B active", m.Active/1e9)
			}
			fmt.Fprintf(w, "), weights %s, KV cache %s, context %d tokens a sequence\n", dtypeLabel(dtype, weightBytes), kvDtype, context)
			tw := tabwriter.NewWriter(w, 2, 0, 2, ' ', tabwriter.AlignRight)
			fmt.Fprintf(tw, "hardware\tbandwidth GB/s\tbatch\tweights MB\tKV MB\tmemory-bound TPS\tcompute-bound TPS\tbinds\tsystem TPS\tper-request TPS\tfits\t\n")
			overflow := false
			var capacity []string
			for _, h := range hws {
				c := roofline.Case{Model: m, BytesPerParam: bpp, KVBytes: kvb, Hardware: h, Context: context, WeightBytes: weightBytes}
				for _, b := range bs {
					c.Batch = b
					e := c.Run()
					fits := "?"
					if ok, known := e.Fits(h); known && ok {
						fits = "yes"
					} else if known {
						fits, overflow = "NO", true
					}
					fmt.Fprintf(tw, "%s\t%.0f\t%d\t%.1f\t%.1f\t%.1f\t%.1f\t%s\t%.1f\t%.1f\t%s\t\n", h.Name, h.Bandwidth, b, e.WeightBytes/1e6, e.KVBytes/1e6,
						float64(b)/e.MemoryStepS, float64(b)/e.ComputeStepS, e.Binds, e.SystemTPS, e.PerRequestTPS, fits)
				}
				if n, bounded := c.MaxBatch(); bounded {
					capacity = append(capacity, fmt.Sprintf("%s: its %.0f GB hold the weights and at most %d sequences of %d tokens", h.Name, h.MemoryGB, n, context))
				}
			}
			tw.Flush()
			if overflow {
				fmt.Fprintln(w, "Rows marked NO need more memory than the hardware has (weights and KV cache): their figures are what its bandwidth would give, not what would run.")
			}
			if len(capacity) > 0 {
				fmt.Fprintf(w, "Memory (an upper bound: servers keep some for activations):\n  %s\n", strings.Join(capacity, "\n  "))
			}
			if records == "" {
				return nil
			}
			steps := metrics.NewSteps(metrics.Targets{})
			if err := readRecords(records, cmd.ErrOrStderr(), steps.Add); err != nil {
				return err
			}
			h := hws[0]
			fmt.Fprintf(w, "\nMeasured (%s) against the %s bound:\n", records, h.Name)
			tw = tabwriter.NewWriter(w, 2, 0, 2, ' ', tabwriter.AlignRight)
			fmt.Fprintf(tw, "step\tconcurrency\tmeasured system TPS\tbound\tefficiency\t\n")
			for _, s := range steps.Summaries() {
				b := max(s.Concurrency, 1)
				e := roofline.Case{Model: m, BytesPerParam: bpp, KVBytes: kvb, Hardware: h, Batch: b, Context: context, WeightBytes: weightBytes}.Run()
				fmt.Fprintf(tw, "%s\t%d\t%.1f\t%.1f\t%.0f%%\t\n", s.Label, b, s.SystemTPS, e.SystemTPS, 100*s.SystemTPS/e.SystemTPS)
			}
			return tw.Flush()
		},
	}
	f := cmd.Flags()
	f.StringVar(&model, "model", "llama-3-8b", "a catalogue model, a built-in preset (15m, 110m) or a GGUF file")
	f.StringVar(&dtype, "dtype", "f16", "weight format: f32, f16, bf16, int8, fp8, q8_0, int4, q4_0 (a GGUF file has its own)")
	f.StringVar(&kvDtype, "kv-dtype", "f16", "KV cache element format")
	f.StringVar(&hardware, "hardware", "h100-sxm", "comma-separated hardware names, or 'this' to measure this machine")
	f.StringVar(&batches, "batch", "1,4,8,16,32", "batch sizes")
	f.IntVar(&context, "context", 1024, "tokens each sequence holds in its KV cache")
	f.IntVar(&threads, "threads", 0, "threads for measuring this machine (default: all cores)")
	f.StringVar(&records, "records", "", "a records file whose steps to set against the bound of the first hardware")
	return cmd
}

func dtypeLabel(dtype string, fileBytes float64) string {
	if fileBytes > 0 {
		return fmt.Sprintf("as in the file (%.1f MB a step)", fileBytes/1e6)
	}
	return dtype
}

// estimateModel resolves a catalogue name, a preset (made with dtype) or a
// GGUF file; for the latter two it also returns the exact bytes a step reads.
func estimateModel(name, dtype string) (roofline.Model, float64, error) {
	if m, err := roofline.FindModel(name); err == nil {
		return m, 0, nil
	}
	var f *gguf.File
	if p, err := synth.Lookup(name); err == nil {
		typ, err := gguf.ParseTensorType(dtype)
		if err != nil {
			return roofline.Model{}, 0, usagef("--dtype %q for a preset: want f32, f16, q8_0 or q4_0", dtype)
		}
		b, err := synth.Bytes(p, typ, 1)
		if err != nil {
			return roofline.Model{}, 0, usageError{err}
		}
		if f, err = gguf.Parse(b); err != nil {
			return roofline.Model{}, 0, err
		}
		name = p.Name + "-" + strings.ToLower(typ.String())
	} else if _, statErr := os.Stat(name); statErr == nil {
		if f, err = gguf.Open(name); err != nil {
			return roofline.Model{}, 0, err
		}
		defer f.Close()
	} else {
		_, err := roofline.FindModel(name)
		return roofline.Model{}, 0, usageError{err}
	}
	lm, err := llama.Load(f, 1)
	if err != nil {
		return roofline.Model{}, 0, err
	}
	defer lm.Close()
	c := lm.Config
	return roofline.Model{Name: name, Params: float64(lm.Params()), Layers: c.Layers, Heads: c.Heads, KVHeads: c.KVHeads, HeadDim: c.HeadDim()},
		float64(lm.BytesPerToken()), nil
}
