package scripted

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"image"
	_ "image/jpeg" // the formats the client sends
	_ "image/png"
	"math"
	"strings"

	"github.com/tpsbench/tpsbench/content"
	"github.com/tpsbench/tpsbench/workload"
)

// ImageSeen is an image the server received: its size, and the prompt
// tokens it charged for it.
type ImageSeen struct {
	W, H, Tokens int
}

// AudioSeen is a piece of audio the server received (a WAV): its length,
// and the prompt tokens it charged for it.
type AudioSeen struct {
	Seconds float64
	Tokens  int
}

// VideoSeen is a video the server received (a Motion-JPEG AVI): its
// frames' size, how many, their rate, and the prompt tokens it charged.
type VideoSeen struct {
	W, H, Frames int
	FPS          float64
	Tokens       int
}

// readMedia decodes the media of a chat request's content parts
// (image_url and video_url data URLs, input_audio data) into the log, as
// a multimodal model's server does, and gives the prompt tokens they
// cost. A part it cannot decode is left out, so a test sees it missing.
func (log *Sent) readMedia(raw []byte) int {
	var body struct {
		Messages []struct {
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if json.Unmarshal(raw, &body) != nil {
		return 0
	}
	tokens := 0
	for _, m := range body.Messages {
		var parts []struct {
			Type     string `json:"type"`
			ImageURL struct {
				URL string `json:"url"`
			} `json:"image_url"`
			VideoURL struct {
				URL string `json:"url"`
			} `json:"video_url"`
			InputAudio struct {
				Data   string `json:"data"`
				Format string `json:"format"`
			} `json:"input_audio"`
		}
		if json.Unmarshal(m.Content, &parts) != nil {
			continue
		}
		for _, p := range parts {
			switch p.Type {
			case "image_url":
				if img, ok := imageOf(dataURL(p.ImageURL.URL)); ok {
					log.Images = append(log.Images, img)
					tokens += img.Tokens
				}
			case "video_url":
				if v, ok := videoOf(dataURL(p.VideoURL.URL)); ok {
					log.Videos = append(log.Videos, v)
					tokens += v.Tokens
				}
			case "input_audio":
				b, err := base64.StdEncoding.DecodeString(p.InputAudio.Data)
				if a, ok := audioOf(b); err == nil && ok && p.InputAudio.Format == "wav" {
					log.Audios = append(log.Audios, a)
					tokens += a.Tokens
				}
			}
		}
	}
	return tokens
}

// dataURL is a base64 data URL's bytes, or nil.
func dataURL(url string) []byte {
	_, data, ok := strings.Cut(url, ";base64,")
	if !ok || !strings.HasPrefix(url, "data:") {
		return nil
	}
	b, err := base64.StdEncoding.DecodeString(data)
	if err != nil {
		return nil
	}
	return b
}

// imageOf decodes an image's size and charges it as Qwen2-VL does.
func imageOf(b []byte) (ImageSeen, bool) {
	cfg, _, err := image.DecodeConfig(bytes.NewReader(b))
	if err != nil {
		return ImageSeen{}, false
	}
	return ImageSeen{W: cfg.Width, H: cfg.Height, Tokens: qwen2VLTokens(cfg.Width, cfg.Height)}, true
}

// audioOf reads a WAV's length and charges it as Qwen2-Audio does: a
// token each 40 ms (its encoder's 20 ms frames, pooled in pairs).
func audioOf(b []byte) (AudioSeen, bool) {
	seconds, err := content.WAVSeconds(b)
	if err != nil {
		return AudioSeen{}, false
	}
	return AudioSeen{Seconds: seconds, Tokens: int(math.Ceil(seconds * 25))}, true
}

// videoOf decodes every frame of a Motion-JPEG AVI and charges it as
// Qwen2-VL does a video: its frames in pairs (a temporal patch of 2),
// each pair a frame's patches of 28x28.
func videoOf(b []byte) (VideoSeen, bool) {
	frames, fps, err := workload.AVIFrames(b)
	if err != nil {
		return VideoSeen{}, false
	}
	var v VideoSeen
	for i, f := range frames {
		img, ok := imageOf(f)
		if !ok || i > 0 && (img.W != v.W || img.H != v.H) {
			return VideoSeen{}, false
		}
		v.W, v.H = img.W, img.H
	}
	v.Frames, v.FPS = len(frames), fps
	v.Tokens = (v.Frames + 1) / 2 * qwen2VLTokens(v.W, v.H)
	return v, true
}

// qwen2VLTokens is the prompt tokens Qwen2-VL charges for an image of w x
// h: its sides rounded to multiples of 28 (smart_resize, within 56x56 and
// 1280 patches of 28x28 pixels), a token a 28x28 patch.
func qwen2VLTokens(w, h int) int {
	const factor, minPixels, maxPixels = 28.0, 56 * 56, 28 * 28 * 1280
	hb := math.Max(factor, math.Round(float64(h)/factor)*factor)
	wb := math.Max(factor, math.Round(float64(w)/factor)*factor)
	switch {
	case hb*wb > maxPixels:
		beta := math.Sqrt(float64(h*w) / maxPixels)
		hb = math.Floor(float64(h)/beta/factor) * factor
		wb = math.Floor(float64(w)/beta/factor) * factor
	case hb*wb < minPixels:
		beta := math.Sqrt(minPixels / float64(h*w))
		hb = math.Ceil(float64(h)*beta/factor) * factor
		wb = math.Ceil(float64(w)*beta/factor) * factor
	}
	return int(hb/factor) * int(wb/factor)
}
