package latbuckets

import (
	"slices"
	"testing"
)

// TestHoldsVLLMBounds: each list rises and holds every bound of vLLM's
// own histogram of that figure (vllm/v1/metrics/loggers.py: the TTFT,
// inter-token and end-to-end buckets), written out here from its source.
func TestHoldsVLLMBounds(t *testing.T) {
	for _, tc := range []struct {
		name      string
		got, vllm []float64
	}{
		{"TTFT", TTFT(), []float64{0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0, 20.0, 40.0, 80.0, 160.0, 640.0, 2560.0}},
		{"TokenGap", TokenGap(), []float64{0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0, 20.0, 40.0, 80.0}},
		{"Request", Request(), []float64{0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0, 60.0, 120.0, 240.0, 480.0, 960.0, 1920.0, 7680.0}},
	} {
		if !slices.IsSorted(tc.got) || len(slices.Compact(slices.Clone(tc.got))) != len(tc.got) {
			t.Errorf("%s: %v does not rise", tc.name, tc.got)
		}
		for _, b := range tc.vllm {
			if !slices.Contains(tc.got, b) {
				t.Errorf("%s lacks vLLM's bound %v", tc.name, b)
			}
		}
		if tc.got[len(tc.got)-1] != tc.vllm[len(tc.vllm)-1] {
			t.Errorf("%s ends at %v, vLLM's at %v", tc.name, tc.got[len(tc.got)-1], tc.vllm[len(tc.vllm)-1])
		}
	}
	tokens := Tokens()
	if len(tokens) != 14 || tokens[0] != 1 || tokens[13] != 67108864 {
		t.Errorf("Tokens: %v, OpenTelemetry's are 1, 4, ... 67108864", tokens)
	}
}
