package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/tpsbench/tpsbench/internal/scripted"
)

// TestImagesAsTheServerSawThem: --images-per-request 2 with two image
// sizes is a step a size; the scripted server decoded two images of the
// size asked in every request, and charged Qwen2-VL's tokens for them
// (280x280: 10x10 patches of 28, 100 tokens; 560x560: 400), which the
// report counts as the steps' prompt tokens.
func TestImagesAsTheServerSawThem(t *testing.T) {
	srv := scripted.New(scripted.Script{Usage: true, PromptTokens: 5})
	defer srv.Close()
	code, out, errs := cli(t, "run", "--url", srv.URL, "--model", "m", "--api", "chat", "--max-tokens", "3", "--requests", "3",
		"--images-per-request", "2", "--image-size", "280x280,560x560", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	bySize := map[int]int{}
	for _, s := range srv.All() {
		if len(s.Images) != 2 {
			t.Fatalf("a request with %d images: %+v", len(s.Images), s.Images)
		}
		for _, img := range s.Images {
			if img.W != img.H || (img.W != 280 && img.W != 560) {
				t.Errorf("an image of %dx%d", img.W, img.H)
			}
			bySize[img.W]++
		}
	}
	if bySize[280] != 6 || bySize[560] != 6 {
		t.Errorf("images by size %v, want 6 of each", bySize)
	}
	var rep struct {
		Steps []struct {
			Label        string `json:"label"`
			InputTokens  int64  `json:"input_tokens"`
			Images       int64  `json:"images"`
			RequestBytes int64  `json:"request_bytes"`
		} `json:"steps"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	want := map[string]int64{"img=280x280": 3 * (5 + 200), "img=560x560": 3 * (5 + 800)}
	for _, s := range rep.Steps {
		if s.InputTokens != want[s.Label] || s.Images != 6 || s.RequestBytes <= 0 {
			t.Errorf("step %+v, want %d prompt tokens", s, want[s.Label])
		}
	}
	if len(rep.Steps) != 2 {
		t.Fatalf("steps %+v", rep.Steps)
	}
	if code, _, errs := cli(t, "run", "--url", srv.URL, "--model", "m", "--api", "completions", "--images-per-request", "1"); code != exitUsage || !strings.Contains(errs, "chat") {
		t.Errorf("images with completions: exit %d %s", code, errs)
	}
}
