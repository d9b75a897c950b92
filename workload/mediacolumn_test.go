package workload

import (
	"bytes"
	"encoding/base64"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/tpsbench/tpsbench/content"
)

// pngOf is a PNG of w x h.
func pngOf(t *testing.T, w, h int) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewRGBA(image.Rect(0, 0, w, h))); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestMediaColumns: a dataset's image and audio columns give each row
// its media: a file beside the dataset, a list, a data URL, an http URL
// sent as it is, Hugging Face's {"bytes", "path"}; a row without one is
// sent as text, and a row whose media cannot be read or is of another
// kind is dropped and counted.
func TestMediaColumns(t *testing.T) {
	dir := t.TempDir()
	small, wide := pngOf(t, 4, 4), pngOf(t, 8, 2)
	os.WriteFile(filepath.Join(dir, "a.png"), small, 0o644)
	os.WriteFile(filepath.Join(dir, "clip.wav"), EncodeWAV(make([]int16, 8000), 16000), 0o644)
	b64 := base64.StdEncoding.EncodeToString(wide)
	rows := strings.Join([]string{
		`{"q":"one","img":"a.png"}`,
		`{"q":"two","img":["a.png","data:image/png;base64,` + b64 + `"]}`,
		`{"q":"remote","img":"https://example.com/cat?size=2"}`,
		`{"q":"hf","img":{"bytes":"` + b64 + `","path":"x.png"},"sound":"clip.wav"}`,
		`{"q":"text only"}`,
		`{"q":"missing","img":"nope.png"}`,
		`{"q":"wrong kind","img":"clip.wav"}`,
	}, "\n")
	path := filepath.Join(dir, "data.jsonl")
	os.WriteFile(path, []byte(rows), 0o644)
	items, stats, err := LoadDataset(path, Columns{Prompt: "q", Image: "img", Audio: "sound"}, 16)
	if err != nil {
		t.Fatal(err)
	}
	if stats.Kept != 5 || stats.Dropped[dropBadMedia] != 2 {
		t.Fatalf("stats %s", stats)
	}
	want := []struct {
		images int
		first  []byte
		url    string
	}{{1, small, ""}, {2, small, ""}, {1, nil, "https://example.com/cat?size=2"}, {1, wide, ""}, {0, nil, ""}}
	for i, w := range want {
		it := items[i]
		images := 0
		for _, m := range it.Media {
			if m.Kind() == content.KindImage {
				images++
			}
		}
		if images != w.images || (w.images > 0 && (!bytes.Equal(it.Media[0].Data, w.first) || it.Media[0].URL != w.url)) {
			t.Errorf("row %d (%s): media %d images, first %d bytes, url %q", i, it.Prompt, images, len(it.Media[0].Data), it.Media[0].URL)
		}
	}
	if len(items[1].Media) != 2 || !bytes.Equal(items[1].Media[1].Data, wide) {
		t.Errorf("row 1's second image: %+v", items[1].Media)
	}
	if m := items[3].Media; len(m) != 2 || m[1].Kind() != content.KindAudio || m[1].Seconds != 0.5 {
		t.Errorf("the hf row's audio: %+v", m)
	}
}

// TestMediaColumnParquet: Hugging Face's Image feature as Parquet stores
// it (a struct of binary bytes and a path) reads back as the image's own
// bytes, not text mangled on its way through JSON.
func TestMediaColumnParquet(t *testing.T) {
	type imageFeature struct {
		Bytes []byte `parquet:"bytes"`
		Path  string `parquet:"path"`
	}
	type row struct {
		Question string       `parquet:"question"`
		Image    imageFeature `parquet:"image"`
	}
	img := pngOf(t, 5, 3)
	path := filepath.Join(t.TempDir(), "vqa.parquet")
	if err := parquet.WriteFile(path, []row{{"what is it?", imageFeature{img, "p.png"}}, {"and this?", imageFeature{img[:20], "broken.png"}}}); err != nil {
		t.Fatal(err)
	}
	items, stats, err := LoadDataset(path, Columns{Prompt: "question", Image: "image"}, 16)
	if err != nil {
		t.Fatal(err)
	}
	if stats.Kept != 2 || len(items[0].Media) != 1 || !bytes.Equal(items[0].Media[0].Data, img) || items[0].Media[0].MIME != "image/png" {
		t.Fatalf("stats %s, first row's media %d", stats, len(items[0].Media))
	}
}
