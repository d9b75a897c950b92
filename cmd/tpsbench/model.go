package main

import (
	"fmt"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/tpsbench/tpsbench/engine/gguf"
	"github.com/tpsbench/tpsbench/engine/llama"
	"github.com/tpsbench/tpsbench/engine/synth"
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
			p, err := synth.Lookup(shape)
			if err != nil {
				return usageError{err}
			}
			typ, err := gguf.ParseTensorType(dtype)
			if err != nil {
				return usageError{fmt.Errorf("--dtype: %w", err)}
			}
			if err := synth.CheckFormat(typ); err != nil {
				return usageError{fmt.Errorf("--dtype: %w", err)}
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
			if err := synth.Write(f, p, typ, seed); err != nil {
				return fmt.Errorf("writing %s: %w", out, err)
			}
			return f.Commit()
		},
	}
	cmd.Flags().StringVar(&shape, "shape", "15m", "model shape: "+strings.Join(synth.ShapeNames(), ", "))
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
			f, err := gguf.Open(args[0])
			if err != nil {
				return err
			}
			defer f.Close()
			w := cmd.OutOrStdout()
			arch, _ := f.String("general.architecture")
			name, _ := f.String("general.name")
			fmt.Fprintf(w, "File: %s (GGUF v%d, %d tensors, %d metadata keys)\n", args[0], f.Version, len(f.Tensors), len(f.Metadata))
			fmt.Fprintf(w, "Architecture: %s\nName: %s\n", arch, name)
			formats := map[string]uint64{}
			for _, t := range f.Tensors {
				formats[t.Type.String()] += t.Elements()
			}
			var fs []string
			for k, n := range formats {
				fs = append(fs, fmt.Sprintf("%s (%d elements)", k, n))
			}
			sort.Strings(fs)
			fmt.Fprintf(w, "Weight formats: %v\n", fs)
			c, err := llama.ConfigFromGGUF(f)
			if err != nil {
				return fmt.Errorf("%s: %w", args[0], err)
			}
			tw := tabwriter.NewWriter(w, 2, 0, 2, ' ', 0)
			fmt.Fprintf(tw, "Embedding\t%d\nFeed-forward\t%d\nLayers\t%d\nHeads\t%d (key/value %d, head size %d)\nVocabulary\t%d\nContext\t%d\n",
				c.Dim, c.Hidden, c.Layers, c.Heads, c.KVHeads, c.HeadDim(), c.Vocab, c.Context)
			tw.Flush()
			m, err := llama.Load(f, 1)
			if err != nil {
				return fmt.Errorf("%s: %w", args[0], err)
			}
			defer m.Close()
			fmt.Fprintf(w, "Parameters: %d (%.1f M)\n", m.Params(), float64(m.Params())/1e6)
			read, file := m.BytesPerToken(), m.FileBytesPerToken()
			fmt.Fprintf(w, "Bytes read per generated token: %d (%s)", read, mib(read))
			if read != file {
				// packed or repacked for this CPU's kernels
				fmt.Fprintf(w, " as the engine lays the weights out on this CPU; %d (%s) in the file's formats", file, mib(file))
			}
			kv := 2 * c.Layers * c.KVDim() // keys and values, each position
			fmt.Fprintf(w, "\nKV cache: %d bytes a position in F32 (the engine's default), %d in F16 (--kv-cache-dtype f16, llama.cpp's default)\n", 4*kv, 2*kv)
			return nil
		},
	}
}
