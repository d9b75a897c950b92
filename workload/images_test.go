package workload

import (
	"bytes"
	"image"
	"testing"

	"github.com/tpsbench/tpsbench/content"
)

// TestSyntheticImages: the pool's images are of the size and format asked,
// distinct from one another, and the same for the same seed; requests
// cycle through them, each its own.
func TestSyntheticImages(t *testing.T) {
	for _, format := range []string{ImagePNG, ImageJPEG} {
		pool, err := SyntheticImages(ImageSize{64, 48}, format, 7)
		if err != nil {
			t.Fatal(err)
		}
		again, _ := SyntheticImages(ImageSize{64, 48}, format, 7)
		seen := map[string]bool{}
		for i, m := range pool {
			cfg, got, err := image.DecodeConfig(bytes.NewReader(m.Data))
			if err != nil || cfg.Width != 64 || cfg.Height != 48 || got != format || m.MIME != "image/"+format {
				t.Fatalf("%s image %d: %v %s %+v %s", format, i, err, got, cfg, m.MIME)
			}
			if !bytes.Equal(m.Data, again[i].Data) {
				t.Errorf("%s image %d differs for the same seed", format, i)
			}
			seen[string(m.Data)] = true
		}
		if len(seen) != imagePool {
			t.Errorf("%s: %d distinct images of %d", format, len(seen), imagePool)
		}
	}
	if _, err := SyntheticImages(ImageSize{8, 8}, "gif", 1); err == nil {
		t.Error("gif accepted")
	}
	w := WithMedia{Source: Fixed{Prompt: "p"}, Pool: []content.Media{{Data: []byte("a")}, {Data: []byte("b")}, {Data: []byte("c")}}, PerRequest: 2}
	if it := w.Item(1, false); len(it.Media) != 2 || string(it.Media[0].Data) != "c" || string(it.Media[1].Data) != "a" {
		t.Errorf("request 1's images %+v", it.Media)
	}
	for _, bad := range []string{"", "512", "0x5", "9000x10", "axb"} {
		if _, err := ParseImageSizes(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	if s, err := ParseImageSizes("256x256, 1024X768"); err != nil || len(s) != 2 || s[1] != (ImageSize{1024, 768}) {
		t.Errorf("%v %v", s, err)
	}
}
