package scripted

import "testing"

// TestQwen2VLTokens: Qwen2-VL's charge, worked by hand from smart_resize:
// 280x280 is 10x10 patches of 28 (100 tokens); 300x200 rounds to 308x196,
// 11x7 (77); 1000x1000 rounds to 1008x1008, past 1280 patches, so it is
// scaled down to 35x35 (1225); 10x10 is under 56x56, scaled up to 2x2 (4).
func TestQwen2VLTokens(t *testing.T) {
	for _, tc := range []struct{ w, h, want int }{{280, 280, 100}, {300, 200, 77}, {1000, 1000, 1225}, {10, 10, 4}} {
		if got := qwen2VLTokens(tc.w, tc.h); got != tc.want {
			t.Errorf("%dx%d: %d tokens, want %d", tc.w, tc.h, got, tc.want)
		}
	}
}
