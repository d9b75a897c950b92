package trace

import (
	"strings"
	"testing"
	"time"

	"github.com/tpsbench/tpsbench/record"
)

// FuzzReader: any file gives entries that can be replayed (counts in
// range, blocks within the prompt, offsets in order and in the window) or
// an error; never a panic.
func FuzzReader(f *testing.F) {
	f.Add([]byte(mooncakeSample), uint8(0))
	f.Add([]byte(`{"v":3,"t0":5,"scheduled":9,"sent":9,"first":10,"last":12,"done":12,"prompt_tokens":9,"output_tokens":3,"prefix":{"blocks":[1,2],"block_bytes":4,"bytes":9}}`+"\n"+`{"v":3,"t0":5,"scheduled":2,"sent":2,"done":3,"prompt_tokens":2,"max_tokens":2,"error":{"kind":"timeout","message":"x"}}`), uint8(1))
	f.Add([]byte(`{"timestamp": 1e300, "input_length": 5, "output_length": 2}`), uint8(2))
	f.Add([]byte("\uFEFF"+`{"timestamp": 0.5, "input_length": 1, "output_length": 1, "hash_ids": [18446744073709551615]}`), uint8(3))
	f.Add([]byte(burstGPTSample), uint8(0))
	f.Add([]byte("Timestamp,Request tokens,Response tokens\n1e9,1,1\n-1,2,2\n3,2.5,1\n"), uint8(2))
	f.Fuzz(func(t *testing.T, data []byte, mode uint8) {
		opts := []Options{{}, {Speed: 3}, {From: time.Millisecond, To: 40 * time.Millisecond}, {ShardI: 1, ShardN: 2}}[int(mode)%4]
		rd, err := NewReader(strings.NewReader(string(data)), "f", opts)
		if err != nil {
			return
		}
		last := time.Duration(-1)
		for n := 0; n < 10000; n++ {
			var e Entry
			if rd.Next(&e) != nil {
				return
			}
			if e.InputTokens < 1 || e.InputTokens > record.MaxTokens || e.OutputTokens < 1 || e.OutputTokens > record.MaxTokens ||
				(len(e.Blocks) > 0 && (e.BlockTokens < 1 || len(e.Blocks) > e.InputTokens)) || e.Offset < last || e.Offset < 0 {
				t.Fatalf("entry %+v after offset %v", e, last)
			}
			if opts.To > 0 && e.Offset >= (opts.To-opts.From) {
				t.Fatalf("entry at %v outside the window %+v", e.Offset, opts)
			}
			last = e.Offset
		}
	})
}
