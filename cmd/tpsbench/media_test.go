package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tpsbench/tpsbench/internal/scripted"
	"github.com/tpsbench/tpsbench/workload"
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

// TestTranscriptionAsTheServerSawIt: --api transcription sends each
// request a synthetic WAV of --audio-duration in a multipart form; the
// scripted server decoded 2 s of audio in each, charged it 50 tokens
// (Qwen2-Audio's 25 a second), and streamed the tokens asked. The report
// counts the audio and gives its real-time factor: 6 s of audio over the
// requests' seconds from send to end, which cannot be shorter than what
// the server took by its own log (received to last event), so the factor
// is at most 6 s over those.
func TestTranscriptionAsTheServerSawIt(t *testing.T) {
	srv := scripted.New(scripted.Script{TTFT: 20 * time.Millisecond, Gap: 5 * time.Millisecond, Usage: true})
	defer srv.Close()
	code, out, errs := cli(t, "run", "--url", srv.URL, "--model", "m", "--api", "transcription", "--max-tokens", "6", "--requests", "3",
		"--audio-duration", "2s", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	serverSpan := 0.0
	for _, s := range srv.All() {
		if len(s.Audios) != 1 || s.Audios[0].Seconds != 2 || s.Audios[0].Tokens != 50 || !s.Stream || len(s.Events) != 6 {
			t.Fatalf("the server saw %+v, %d events (stream %v)", s.Audios, len(s.Events), s.Stream)
		}
		serverSpan += s.Events[len(s.Events)-1].Sub(s.Received).Seconds()
	}
	var rep struct {
		Steps []struct {
			Requests struct {
				Completed int `json:"completed"`
			} `json:"requests"`
			InputTokens    int64   `json:"input_tokens"`
			OutputTokens   int64   `json:"output_tokens"`
			Audios         int64   `json:"audios"`
			AudioSeconds   float64 `json:"audio_s"`
			RealTimeFactor float64 `json:"real_time_factor"`
		} `json:"steps"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Steps) != 1 {
		t.Fatalf("steps %+v", rep.Steps)
	}
	s := rep.Steps[0]
	if s.Requests.Completed != 3 || s.InputTokens != 150 || s.OutputTokens != 18 || s.Audios != 3 || s.AudioSeconds != 6 ||
		!(s.RealTimeFactor > 0 && s.RealTimeFactor <= 6/serverSpan) {
		t.Errorf("step %+v, want 3 completed, 150 prompt and 18 output tokens, 6 s of audio at most %.2fx real time", s, 6/serverSpan)
	}
}

// TestMediaPartsAsTheServerSawThem: images from --image-dir, synthetic
// audio and a synthetic Motion-JPEG video go in each chat request as
// image_url, input_audio and video_url parts; the scripted server decoded
// every one as sent (the folder's images at their sizes, in name order
// and cycled; 1 s of audio; 4 frames of 56x56 at 2 fps) and charged
// them: 25 tokens the audio, 2 frame pairs of 4 patches the video, and
// Qwen2-VL's patches for each image (28x28: 4, as under 56x56 it is
// scaled up; 84x56: 6).
func TestMediaPartsAsTheServerSawThem(t *testing.T) {
	dir := t.TempDir()
	for name, size := range map[string][2]int{"a.png": {28, 28}, "b.png": {84, 56}} {
		var b bytes.Buffer
		if err := png.Encode(&b, image.NewRGBA(image.Rect(0, 0, size[0], size[1]))); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("not an image"), 0o644)
	srv := scripted.New(scripted.Script{Usage: true})
	defer srv.Close()
	code, out, errs := cli(t, "run", "--url", srv.URL, "--model", "m", "--api", "chat", "--max-tokens", "2", "--requests", "3", "--concurrency", "1",
		"--image-dir", dir, "--audio-per-request", "1", "--audio-duration", "1s", "--videos-per-request", "1", "--video-size", "56x56", "--video-frames", "4", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	widths := []int{}
	for seq := range 3 {
		s, ok := srv.Log(fmt.Sprintf("cmpl-%d", seq))
		if !ok || len(s.Images) != 1 || len(s.Audios) != 1 || len(s.Videos) != 1 {
			t.Fatalf("request %d: %+v %+v %+v", seq, s.Images, s.Audios, s.Videos)
		}
		if a, v := s.Audios[0], s.Videos[0]; a.Seconds != 1 || a.Tokens != 25 || v.W != 56 || v.H != 56 || v.Frames != 4 || v.FPS != 2 || v.Tokens != 8 {
			t.Errorf("request %d: audio %+v, video %+v", seq, a, v)
		}
		widths = append(widths, s.Images[0].W)
	}
	if !strings.Contains(errs, "--image-dir: 2 image files") || !strings.Contains(errs, "1 other entries left out") {
		t.Errorf("no word of the folder's files kept and left out: %s", errs)
	}
	if fmt.Sprint(widths) != "[28 84 28]" {
		t.Errorf("image widths by request %v, want the folder's in name order, cycled", widths)
	}
	var rep struct {
		Steps []struct {
			InputTokens            int64 `json:"input_tokens"`
			Images, Audios, Videos int64
			Upload                 struct{ Count int } `json:"upload_ms"`
		} `json:"steps"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if want := int64(3*(25+8) + 4 + 6 + 4); len(rep.Steps) != 1 || rep.Steps[0].InputTokens != want || rep.Steps[0].Images != 3 || rep.Steps[0].Audios != 3 || rep.Steps[0].Videos != 3 || rep.Steps[0].Upload.Count != 3 {
		t.Errorf("steps %+v, want %d prompt tokens, 3 of each medium and 3 uploads timed", rep.Steps, want)
	}
}

// TestMediaRefused: media an API cannot carry, or a folder without them,
// are usage errors before anything is sent.
func TestMediaRefused(t *testing.T) {
	empty := t.TempDir()
	for _, args := range [][]string{
		{"--api", "transcription", "--images-per-request", "1"},
		{"--api", "transcription", "--audio-per-request", "2"},
		{"--api", "completions", "--audio-per-request", "1"},
		{"--api", "embeddings", "--videos-per-request", "1"},
		{"--api", "chat", "--image-dir", empty},
		{"--api", "chat", "--audio-dir", empty, "--audio-duration", "1s"},
		{"--api", "chat", "--audio-duration", "-1s"},
		{"--api", "chat", "--videos-per-request", "1", "--video-frames", "0"},
		{"--api", "chat", "--videos-per-request", "1", "--video-size", "10x10,20x20"},
	} {
		code, _, errs := cli(t, append([]string{"run", "--url", "http://127.0.0.1:1", "--model", "m", "--requests", "1"}, args...)...)
		if code != exitUsage || !strings.Contains(errs, "tpsbench: ") {
			t.Errorf("%v: exit %d: %s", args, code, errs)
		}
	}
}

// TestMediaColumnsAsTheServerSawThem: a dataset's image column sends
// each row's own image (files beside the dataset), and its audio column
// is what --api transcription transcribes; the scripted server decoded
// each as a row named it, and the row whose file is missing was dropped
// and said so.
func TestMediaColumnsAsTheServerSawThem(t *testing.T) {
	dir := t.TempDir()
	for name, w := range map[string]int{"small.png": 28, "large.png": 280} {
		var b bytes.Buffer
		png.Encode(&b, image.NewRGBA(image.Rect(0, 0, w, w)))
		os.WriteFile(filepath.Join(dir, name), b.Bytes(), 0o644)
	}
	clips, err := workload.SyntheticAudio(1.5, 1)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "clip.wav"), clips[0].Data, 0o644)
	data := filepath.Join(dir, "vqa.jsonl")
	os.WriteFile(data, []byte(`{"q":"what?","img":"small.png","wav":"clip.wav"}`+"\n"+`{"q":"and?","img":"large.png","wav":"clip.wav"}`+"\n"+`{"q":"gone","img":"gone.png"}`+"\n"), 0o644)

	srv := scripted.New(scripted.Script{Usage: true})
	defer srv.Close()
	code, _, errs := cli(t, "run", "--url", srv.URL, "--model", "m", "--api", "chat", "--max-tokens", "2", "--requests", "2", "--concurrency", "1",
		"--prompts", data, "--prompt-column", "q", "--image-column", "img")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(errs, "2 of 3 rows kept") {
		t.Errorf("no word of the dropped row: %s", errs)
	}
	widths := map[int]int{}
	for seq := range 2 {
		s, ok := srv.Log(fmt.Sprintf("cmpl-%d", seq))
		if !ok || len(s.Images) != 1 || len(s.Audios) != 0 {
			t.Fatalf("request %d: images %+v, audio %+v; want one image", seq, s.Images, s.Audios)
		}
		widths[s.Images[0].W]++
	}
	if widths[28]+widths[280] != 2 {
		t.Errorf("image widths %v: want the rows' own, 28 or 280", widths)
	}

	code, _, errs = cli(t, "run", "--url", srv.URL, "--model", "m", "--api", "transcription", "--max-tokens", "2", "--requests", "1",
		"--prompts", data, "--prompt-column", "q", "--audio-column", "wav")
	if code != 0 {
		t.Fatalf("transcription: exit %d: %s", code, errs)
	}
	if s, ok := srv.Log("trsc-2"); !ok || len(s.Audios) != 1 || s.Audios[0].Seconds != 1.5 {
		t.Errorf("transcription: the server saw %+v", s.Audios)
	}
}

// TestReplayTranscription: records of transcriptions replay with audio
// of each record's length: the server decoded clips of exactly the
// lengths the records hold (1.5 s and 0.7 s runs), and the replay's
// prompt tokens, which it charged from those lengths, match the records'.
func TestReplayTranscription(t *testing.T) {
	srv := scripted.New(scripted.Script{Usage: true, TTFT: time.Millisecond})
	defer srv.Close()
	dir := t.TempDir()
	var trace []byte
	for _, d := range []string{"1500ms", "700ms"} { // two runs, one after the other: a trace
		recs := filepath.Join(dir, d+".jsonl")
		if code, _, errs := cli(t, "run", "--url", srv.URL, "--model", "m", "--api", "transcription", "--audio-duration", d, "--max-tokens", "3",
			"--requests", "2", "--concurrency", "1", "-q", "--records", recs); code != 0 {
			t.Fatalf("exit %d: %s", code, errs)
		}
		b, _ := os.ReadFile(recs)
		trace = append(trace, b...)
	}
	recs := filepath.Join(dir, "asr.jsonl")
	os.WriteFile(recs, trace, 0o644)
	before := srv.Requests()
	code, out, errs := cli(t, "run", "--url", srv.URL, "--model", "m", "--api", "transcription", "--trace", recs, "--format", "json")
	if code != 0 {
		t.Fatalf("replay: exit %d: %s", code, errs)
	}
	lengths := map[float64]int{}
	for seq := before; seq < srv.Requests(); seq++ {
		if s, ok := srv.Log(fmt.Sprintf("trsc-%d", seq)); ok && len(s.Audios) == 1 {
			lengths[s.Audios[0].Seconds]++
		}
	}
	if lengths[1.5] != 2 || lengths[0.7] != 2 {
		t.Errorf("replayed audio lengths %v, want two of 1.5 s and two of 0.7 s", lengths)
	}
	var rep struct {
		Steps []struct {
			Replay struct {
				Requests   int `json:"requests"`
				InputExact int `json:"input_exact"`
			} `json:"replay"`
		} `json:"steps"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil || len(rep.Steps) != 1 || rep.Steps[0].Replay.Requests != 4 || rep.Steps[0].Replay.InputExact != 4 {
		t.Errorf("replay %+v (%v)", rep.Steps, err)
	}
}
