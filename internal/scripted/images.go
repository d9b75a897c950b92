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
)

// ImageSeen is an image the server received: its size, and the prompt
// tokens it charged for it.
type ImageSeen struct {
	W, H, Tokens int
}

// imagesIn decodes the images of a chat request's image_url parts (data
// URLs), as a vision-language model's server does.
func imagesIn(raw []byte) []ImageSeen {
	var body struct {
		Messages []struct {
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if json.Unmarshal(raw, &body) != nil {
		return nil
	}
	var out []ImageSeen
	for _, m := range body.Messages {
		var parts []struct {
			Type     string `json:"type"`
			ImageURL struct {
				URL string `json:"url"`
			} `json:"image_url"`
		}
		if json.Unmarshal(m.Content, &parts) != nil {
			continue
		}
		for _, p := range parts {
			_, data, ok := strings.Cut(p.ImageURL.URL, ";base64,")
			if p.Type != "image_url" || !ok {
				continue
			}
			b, err := base64.StdEncoding.DecodeString(data)
			if err != nil {
				continue
			}
			cfg, _, err := image.DecodeConfig(bytes.NewReader(b))
			if err != nil {
				continue
			}
			out = append(out, ImageSeen{W: cfg.Width, H: cfg.Height, Tokens: qwen2VLTokens(cfg.Width, cfg.Height)})
		}
	}
	return out
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
