package workload

import (
	"bytes"
	"image"
	"image/jpeg"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tpsbench/tpsbench/content"
)

// TestSyntheticAudio: each clip is a WAV of the length asked (its header
// says so), speech-like (loud syllables and quiet pauses, never a
// constant), distinct from the pool's others, and the same for a seed.
func TestSyntheticAudio(t *testing.T) {
	pool, err := SyntheticAudio(2.5, 3)
	if err != nil {
		t.Fatal(err)
	}
	again, _ := SyntheticAudio(2.5, 3)
	seen := map[string]bool{}
	for i, m := range pool {
		secs, err := content.WAVSeconds(m.Data)
		if err != nil || secs != 2.5 || m.Seconds != 2.5 || m.MIME != "audio/wav" || m.Kind() != content.KindAudio {
			t.Fatalf("clip %d: %g s (%v), %g s said, %s", i, secs, err, m.Seconds, m.MIME)
		}
		if !bytes.Equal(m.Data, again[i].Data) {
			t.Errorf("clip %d differs for the same seed", i)
		}
		seen[string(m.Data)] = true
		// in frames of 20 ms: voiced ones loud, pauses at the noise floor
		loud, quiet, frames := 0, 0, 0
		for f := 44; f+640 <= len(m.Data); f += 640 {
			sum := 0.0
			for p := f; p < f+640; p += 2 {
				v := float64(int16(uint16(m.Data[p]) | uint16(m.Data[p+1])<<8))
				sum += v * v
			}
			switch rms := math.Sqrt(sum / 320); {
			case rms > 1000:
				loud++
			case rms < 100:
				quiet++
			}
			frames++
		}
		if loud < frames*4/10 || quiet < frames/20 {
			t.Errorf("clip %d: %d loud and %d quiet frames of %d: not speech-like", i, loud, quiet, frames)
		}
	}
	if len(seen) != audioPool {
		t.Errorf("%d distinct clips of %d", len(seen), audioPool)
	}
	for _, bad := range []float64{0, -1, math.NaN(), maxAudioSeconds + 1} {
		if _, err := SyntheticAudio(bad, 1); err == nil {
			t.Errorf("audio of %g s made", bad)
		}
	}
}

// TestSyntheticVideos: each video is an AVI whose frames are JPEGs of the
// size asked, as many as asked, at the rate asked, the square moving.
func TestSyntheticVideos(t *testing.T) {
	shape := VideoShape{Size: ImageSize{W: 64, H: 48}, Frames: 5, FPS: 2.5}
	pool, err := SyntheticVideos(shape, 9)
	if err != nil {
		t.Fatal(err)
	}
	for i, m := range pool {
		frames, fps, err := AVIFrames(m.Data)
		if err != nil || len(frames) != 5 || fps != 2.5 || m.Seconds != 2 || m.Kind() != content.KindVideo {
			t.Fatalf("video %d: %d frames at %g fps (%v), %g s", i, len(frames), fps, err, m.Seconds)
		}
		for f, data := range frames {
			img, err := jpeg.Decode(bytes.NewReader(data))
			if err != nil || img.Bounds() != image.Rect(0, 0, 64, 48) {
				t.Fatalf("video %d frame %d: %v %v", i, f, err, img)
			}
		}
		if bytes.Equal(frames[0], frames[4]) {
			t.Errorf("video %d: the first and last frames are the same", i)
		}
	}
	for _, bad := range []VideoShape{{Size: ImageSize{8, 8}, Frames: 0, FPS: 1}, {Size: ImageSize{8, 8}, Frames: 2, FPS: 0}, {Size: ImageSize{0, 8}, Frames: 2, FPS: 1}} {
		if _, err := SyntheticVideos(bad, 1); err == nil {
			t.Errorf("a video of %+v made", bad)
		}
	}
}

// TestWithMedia: wrapping twice sends both kinds, the first's first, each
// cycling through its pool.
func TestWithMedia(t *testing.T) {
	src := WithMedia{Source: WithMedia{Source: Fixed{Prompt: "p"}, Pool: []content.Media{{MIME: "image/png", Data: []byte("i0")}, {MIME: "image/png", Data: []byte("i1")}}, PerRequest: 1},
		Pool: []content.Media{{MIME: "audio/wav", Data: []byte("a0")}}, PerRequest: 2}
	it := src.Item(1, false)
	if len(it.Media) != 3 || string(it.Media[0].Data) != "i1" || string(it.Media[1].Data) != "a0" || string(it.Media[2].Data) != "a0" {
		t.Errorf("request 1's media %+v", it.Media)
	}
}

// FuzzMediaHeaders: WAV and AVI readers take any bytes: a length that
// is a finite count of seconds, frames within the file, or an error;
// never a panic.
func FuzzMediaHeaders(f *testing.F) {
	wav := EncodeWAV([]int16{1, 2, 3, 4}, 8000)
	f.Add(wav)
	f.Add(wav[:30])
	videos, _ := SyntheticVideos(VideoShape{Size: ImageSize{8, 8}, Frames: 2, FPS: 1}, 1)
	f.Add(videos[0].Data)
	f.Add(videos[0].Data[:100])
	f.Add([]byte("RIFF\xff\xff\xff\xffAVI LIST\x04\x00\x00\x00movi"))
	f.Fuzz(func(t *testing.T, b []byte) {
		if s, err := content.WAVSeconds(b); err == nil && (s < 0 || math.IsInf(s, 0) || math.IsNaN(s)) {
			t.Fatalf("%g seconds", s)
		}
		frames, _, err := AVIFrames(b)
		total := 0
		for _, fr := range frames {
			total += len(fr)
		}
		if err == nil && (len(frames) == 0 || total > len(b)) {
			t.Fatalf("%d frames of %d bytes from %d bytes", len(frames), total, len(b))
		}
	})
}

// TestSpeechClip: clips of any length, past the signal's own too, are
// WAVs of that length, and two indexes start at different places.
func TestSpeechClip(t *testing.T) {
	s := NewSpeech(5)
	for _, secs := range []float64{0.1, 2.5, speechSeconds + 3} {
		c, err := s.Clip(secs, 3)
		got, werr := content.WAVSeconds(c.Data)
		if err != nil || werr != nil || got != secs || c.Seconds != secs {
			t.Errorf("a clip of %g s: %g s said, %g s in its header (%v %v)", secs, c.Seconds, got, err, werr)
		}
	}
	a, _ := s.Clip(1, 0)
	b, _ := s.Clip(1, 1)
	if bytes.Equal(a.Data, b.Data) {
		t.Error("clips 0 and 1 are the same")
	}
	if _, err := s.Clip(0, 0); err == nil {
		t.Error("a clip of 0 s cut")
	}
}

// TestMediaByItsBytes: a media file whose bytes are not its extension's
// format (text named .png) is refused, naming it, alone or in a folder;
// the media tpsbench makes are what their types say.
func TestMediaByItsBytes(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.png"), []byte("this is not a picture"), 0o644)
	if _, err := MediaFile(filepath.Join(dir, "a.png")); err == nil || !strings.Contains(err.Error(), "a.png: not a image/png file") {
		t.Errorf("text named .png: %v", err)
	}
	if _, _, err := MediaDir(dir, content.KindImage); err == nil || !strings.Contains(err.Error(), "a.png") {
		t.Errorf("a folder of it: %v", err)
	}
	var made []content.Media
	for _, format := range []string{"png", "jpeg"} {
		imgs, err := SyntheticImages(ImageSize{8, 8}, format, 1)
		if err != nil {
			t.Fatal(err)
		}
		made = append(made, imgs[0])
	}
	audio, _ := SyntheticAudio(0.5, 1)
	videos, _ := SyntheticVideos(VideoShape{Size: ImageSize{8, 8}, Frames: 2, FPS: 1}, 1)
	for _, m := range append(made, audio[0], videos[0]) {
		if err := checkMagic("made", m.MIME, m.Data); err != nil {
			t.Errorf("what tpsbench makes: %v", err)
		}
	}
}
