package main

import (
	"fmt"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/tpsbench/tpsbench/engine"
	"github.com/tpsbench/tpsbench/internal/outfile"
)

func newModelCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "model", Short: "Make and inspect GGUF models"}
	cmd.AddCommand(newSynthCmd(), newInfoCmd())
	return cmd
}

func newSynthCmd() *cobra.Command {
	var shape, dtype, out string
	var seed uint64
	var force bool
	cmd := &cobra.Command{
		Use:   "synth",
		Short: "Write a llama GGUF model with deterministic dummy weights (same shape and seed, same bytes)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if !slices.Contains(engine.ShapeNames(), shape) {
				return usagef("--shape %q: want %s", shape, strings.Join(engine.ShapeNames(), ", "))
			}
			if err := (engine.Options{Model: shape, Format: dtype}).Validate(); err != nil {
				return usagef("--dtype: %v", err)
			}
			if out == "" {
				return usagef("-o FILE is required")
			}
			if err := outfile.Check(out, force); err != nil {
				return usagef("-o: %v", err)
			}
			// written beside its name and renamed into place: a failed
			// write leaves what was there
			f, err := outfile.Create(out, force)
			if err != nil {
				return err
			}
			defer f.Abort()
			if err := engine.WriteShape(f, shape, dtype, seed); err != nil {
				return fmt.Errorf("writing %s: %w", out, err)
			}
			return f.Commit()
		},
	}
	cmd.Flags().StringVar(&shape, "shape", "15m", "model shape: "+strings.Join(engine.ShapeNames(), ", "))
	// --preset was this flag's name; "preset" now means only the engine's
	// scheduler settings
	cmd.Flags().StringVar(&shape, "preset", "15m", "")
	_ = cmd.Flags().MarkDeprecated("preset", "use --shape")
	cmd.Flags().StringVar(&dtype, "dtype", "f32", "weight format: f32, f16, q8_0, q4_0")
	cmd.Flags().StringVarP(&out, "out", "o", "", "file to write")
	cmd.Flags().BoolVar(&force, "force", false, "replace the file if it exists (otherwise refused)")
	cmd.Flags().Uint64Var(&seed, "seed", 1, "seed of the dummy weights")
	return cmd
}

func newInfoCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "info FILE.gguf",
		Short: "Show a GGUF model's architecture, shapes, weight formats, parameters and bytes read per token",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			d, err := engine.Describe(args[0], "", 0)
			if err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			fmt.Fprintf(w, "File: %s (GGUF v%d, %d tensors, %d metadata keys)\n", args[0], d.Version, d.Tensors, d.MetadataKeys)
			fmt.Fprintf(w, "Architecture: %s\nName: %s\n", d.Architecture, d.FileName)
			fmt.Fprintf(w, "Weight formats: %v\n", d.Formats)
			c := d.Config
			tw := tabwriter.NewWriter(w, 2, 0, 2, ' ', 0)
			fmt.Fprintf(tw, "Embedding\t%d\nFeed-forward\t%d\nLayers\t%d\nHeads\t%d (key/value %d, head size %d)\nVocabulary\t%d\nContext\t%d\n",
				c.Dim, c.Hidden, c.Layers, c.Heads, c.KVHeads, c.HeadDim(), c.Vocab, c.Context)
			tw.Flush()
			fmt.Fprintf(w, "Parameters: %d (%.1f M)\n", d.Params, float64(d.Params)/1e6)
			read, file := d.BytesPerToken, d.FileBytesPerToken
			fmt.Fprintf(w, "Bytes read per generated token: %d (%s)", read, mib(read))
			if read != file {
				// packed or repacked for this CPU's kernels
				fmt.Fprintf(w, " as the engine lays the weights out on this CPU; %d (%s) in the file's formats", file, mib(file))
			}
			kv := d.KVBytesPerPosition // keys and values, each position, in F32
			fmt.Fprintf(w, "\nKV cache: %d bytes a position in F32 (the engine's default), %d in F16 (--kv-cache-dtype f16, llama.cpp's default)\n", kv, kv/2)
			return nil
		},
	}
}
