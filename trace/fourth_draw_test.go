package trace

import (
	"strings"
	"testing"
)

// TestOneTokenBlocksScaled: blocks of one token scale with their prompt
// as larger ones do. A records trace of 8 tokens in 8 blocks of 4 bytes
// (32 bytes) has blocks of one token: scaled by 3, blocks of 3 tokens; by
// 0.5, 4 tokens hold 4 blocks, not 8.
func TestOneTokenBlocksScaled(t *testing.T) {
	in := `{"v":3,"t0":0,"scheduled":0,"sent":0,"done":9,"first":1,"last":2,"prompt_tokens":8,"output_tokens":2,` +
		`"prefix":{"blocks":[1,2,3,4,5,6,7,8],"block_bytes":4,"bytes":32}}` + "\n"
	for _, c := range []struct {
		scale                   float64
		input, blockTokens, got int
	}{{1, 8, 1, 8}, {3, 24, 3, 8}, {0.5, 4, 1, 4}} {
		got, err := readAll(t, in, Options{InputScale: c.scale})
		if err != nil || len(got) != 1 {
			t.Fatalf("scale %v: %+v, %v", c.scale, got, err)
		}
		if e := got[0]; e.InputTokens != c.input || e.BlockTokens != c.blockTokens || len(e.Blocks) != c.got {
			t.Errorf("scale %v: %d tokens in %d blocks of %d; want %d in %d of %d", c.scale, e.InputTokens, len(e.Blocks), e.BlockTokens, c.input, c.got, c.blockTokens)
		}
	}
}

// TestShardOfOne: a shard's index is below the count, for a count of one
// too (1/1 and -1/1 are refused, 0/1 is the whole trace).
func TestShardOfOne(t *testing.T) {
	good := `{"timestamp": 0, "input_length": 8, "output_length": 2}` + "\n"
	for _, c := range []struct {
		i  int
		ok bool
	}{{0, true}, {1, false}, {-1, false}} {
		_, err := NewReader(strings.NewReader(good), "t", Options{ShardI: c.i, ShardN: 1})
		if (err == nil) != c.ok {
			t.Errorf("shard %d/1: %v, want accepted %v", c.i, err, c.ok)
		}
		if err != nil && !strings.Contains(err.Error(), "shard") {
			t.Errorf("shard %d/1: %v does not name the shard", c.i, err)
		}
	}
}
