package engine

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/tpsbench/tpsbench/engine/gguf"
	"github.com/tpsbench/tpsbench/engine/sched"
	"github.com/tpsbench/tpsbench/engine/synth"
)

// ShapeNames are the built-in shapes a model may be (dummy weights).
func ShapeNames() []string { return synth.ShapeNames() }

// ReasoningParsers are the values Options.ReasoningParser takes.
var ReasoningParsers = []string{"deepseek_r1", "qwen3"}

// Validate says what is wrong with the options before anything is
// loaded: what Load would refuse later, or misread.
func (o Options) Validate() error {
	switch {
	case o.Threads < 0 || o.Threads > MaxThreads:
		return fmt.Errorf("threads %d: want 0 (all cores) to %d", o.Threads, MaxThreads)
	case o.Sched.MaxSeqs < 0 || o.Sched.MaxWaiting < 0:
		return errors.New("max-num-seqs and the queue beyond it must not be negative")
	case o.Sched.MaxPrefillTokens < 0:
		return errors.New("max-prefill-tokens must not be negative (0: the default)")
	case o.Sched.PrefixCacheBytes < 0:
		return errors.New("the prefix cache's memory must not be negative (0: the default)")
	case o.Reasoning < 0:
		return errors.New("reasoning tokens must not be negative")
	case o.Pooling != "" && o.Pooling != sched.PoolMean && o.Pooling != sched.PoolLast && o.Pooling != sched.PoolCLS:
		return fmt.Errorf("pooling %q: want mean, last or cls", o.Pooling)
	case o.ReasoningParser != "" && !slices.Contains(ReasoningParsers, o.ReasoningParser):
		return fmt.Errorf("reasoning parser %q: want %s", o.ReasoningParser, strings.Join(ReasoningParsers, " or "))
	}
	if _, err := kvTypeOf(o.KVCache); err != nil {
		return err
	}
	if _, err := synth.Lookup(o.Model); err != nil && o.Model != "" {
		if st, serr := os.Stat(o.Model); serr != nil || st.IsDir() {
			return notAModel(o.Model)
		}
		if o.Format != "" {
			return errors.New("a weight format applies to built-in shapes; a GGUF file has its own")
		}
	}
	_, err := formatOf(o.Format)
	return err
}

// Preset is the scheduler preset of name: throughput or latency.
func Preset(name string) (sched.Options, error) {
	p, ok := Presets[name]
	if !ok {
		return p, fmt.Errorf("scheduler preset %q: want throughput or latency", name)
	}
	return p, nil
}

// formatOf is a built-in shape's weight format, f32 by default.
func formatOf(format string) (gguf.TensorType, error) {
	if format == "" {
		return gguf.F32, nil
	}
	typ, err := gguf.ParseTensorType(format)
	if err != nil || !slices.Contains(synth.Formats, typ) {
		return 0, fmt.Errorf("weight format %q: want f32, f16, q8_0 or q4_0", format)
	}
	return typ, nil
}

// kvTypeOf is what the KV cache holds, F32 by default.
func kvTypeOf(kv string) (gguf.TensorType, error) {
	if kv == "" {
		return gguf.F32, nil
	}
	typ, err := gguf.ParseTensorType(kv)
	if err != nil || (typ != gguf.F32 && typ != gguf.F16) {
		return 0, fmt.Errorf("kv-cache-dtype %q: want f32 or f16", kv)
	}
	return typ, nil
}

// notAModel is the error of a model that is neither a file nor a
// built-in shape.
func notAModel(model string) error {
	return fmt.Errorf("model %q is neither a file nor a built-in shape (%s)", model, strings.Join(ShapeNames(), ", "))
}
