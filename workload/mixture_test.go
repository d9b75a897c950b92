package workload

import (
	"math"
	"reflect"
	"testing"
)

func TestParseSeqDist(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []LengthMode
		ok   bool
	}{
		{"256,128:60;1024,256:40", []LengthMode{{Input: 256, Output: 128, Weight: 60}, {Input: 1024, Output: 256, Weight: 40}}, true},
		{" 256|32 , 128|16 ", []LengthMode{{Input: 256, InputStddev: 32, Output: 128, OutputStddev: 16, Weight: 1}}, true},
		{"256,128:60;", []LengthMode{{Input: 256, Output: 128, Weight: 60}}, true},
		{"", nil, false},
		{"256", nil, false},
		{"0,128", nil, false},
		{"256,128:0", nil, false},
		{"256,128:-1", nil, false},
		{"256|-1,128", nil, false},
		{"256,2000000000", nil, false},
		{"256,128:NaN", nil, false},
	} {
		got, err := ParseSeqDist(tc.in)
		if (err == nil) != tc.ok || (tc.ok && !reflect.DeepEqual(got, tc.want)) {
			t.Errorf("%q: %+v, %v", tc.in, got, err)
		}
	}
}

// TestSyntheticModes: each request draws its lengths from one mode,
// chosen by weight: with no spread, every budget is one mode's output,
// about 60% the first's over 2,000 requests; the same seed, the same
// choices.
func TestSyntheticModes(t *testing.T) {
	s := Synthetic{Seed: 3, Modes: []LengthMode{{Input: 20, Output: 128, Weight: 60}, {Input: 40, Output: 256, Weight: 40}}}
	first := 0
	for seq := range 2000 {
		it := s.Item(seq, false)
		switch it.MaxTokens {
		case 128:
			first++
		case 256:
		default:
			t.Fatalf("request %d: budget %d, not a mode's", seq, it.MaxTokens)
		}
		if again := s.Item(seq, false); !reflect.DeepEqual(again, it) {
			t.Fatalf("request %d drawn twice differently", seq)
		}
	}
	if share := float64(first) / 2000; math.Abs(share-0.6) > 0.04 {
		t.Errorf("first mode drawn for %.3f of requests, want about 0.6", share)
	}
}

// FuzzSeqDist: any text gives modes of lengths in range with weights
// above 0, or an error.
func FuzzSeqDist(f *testing.F) {
	f.Add("256|32,128:60;1024,256|64:40")
	f.Add("1e9,1:1e308;;")
	f.Fuzz(func(t *testing.T, s string) {
		modes, err := ParseSeqDist(s)
		if err != nil {
			return
		}
		for _, m := range modes {
			if !(m.Input >= 1 && m.Output >= 1 && m.Weight > 0 && m.InputStddev >= 0 && m.OutputStddev >= 0) || m.Input > MaxPromptTokens {
				t.Fatalf("%q gave %+v", s, m)
			}
		}
	})
}
