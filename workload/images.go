package workload

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/tpsbench/tpsbench/content"
)

// Image formats synthetic images are made in.
const (
	ImagePNG  = "png"
	ImageJPEG = "jpeg"
)

// ImageSize is an image's width and height in pixels.
type ImageSize struct{ W, H int }

func (s ImageSize) String() string { return fmt.Sprintf("%dx%d", s.W, s.H) }

// maxImageSide bounds a synthetic image's side.
const maxImageSide = 8192

// ParseImageSizes reads "WxH" sizes joined by commas.
func ParseImageSizes(s string) ([]ImageSize, error) {
	var out []ImageSize
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		w, h, ok := strings.Cut(strings.ToLower(part), "x")
		wi, err1 := strconv.Atoi(w)
		hi, err2 := strconv.Atoi(h)
		if !ok || err1 != nil || err2 != nil || wi < 1 || hi < 1 || wi > maxImageSide || hi > maxImageSide {
			return nil, fmt.Errorf("%q: want WIDTHxHEIGHT, each from 1 to %d pixels", part, maxImageSide)
		}
		out = append(out, ImageSize{wi, hi})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%q: no sizes", s)
	}
	return out, nil
}

// imagePool is how many distinct images of a size are made: requests
// cycle through them, so a server's media cache does not answer every
// request but the first.
const imagePool = 32

// SyntheticImages makes the images requests of one size carry: pool
// distinct images (a gradient under random rectangles, drawn from seed),
// encoded in format.
func SyntheticImages(size ImageSize, format string, seed uint64) ([]content.Media, error) {
	out := make([]content.Media, 0, imagePool)
	for i := range imagePool {
		img := drawImage(size, rand.New(rand.NewPCG(seed, uint64(i)|1<<58)))
		var b bytes.Buffer
		mime := "image/png"
		var err error
		switch format {
		case ImagePNG:
			err = png.Encode(&b, img)
		case ImageJPEG:
			mime = "image/jpeg"
			err = jpeg.Encode(&b, img, &jpeg.Options{Quality: 85})
		default:
			return nil, fmt.Errorf("image format %q: want png or jpeg", format)
		}
		if err != nil {
			return nil, fmt.Errorf("encoding a %s image: %w", format, err)
		}
		out = append(out, content.Media{MIME: mime, Data: b.Bytes()})
	}
	return out, nil
}

// drawImage is a gradient with eight random rectangles over it.
func drawImage(size ImageSize, r *rand.Rand) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, size.W, size.H))
	base := uint8(r.IntN(256))
	for y := range size.H {
		for x := range size.W {
			img.SetRGBA(x, y, color.RGBA{uint8(x * 255 / size.W), uint8(y * 255 / size.H), base, 255})
		}
	}
	for range 8 {
		x0, y0 := r.IntN(size.W), r.IntN(size.H)
		x1, y1 := min(size.W, x0+1+r.IntN(size.W/2+1)), min(size.H, y0+1+r.IntN(size.H/2+1))
		c := color.RGBA{uint8(r.IntN(256)), uint8(r.IntN(256)), uint8(r.IntN(256)), 255}
		for y := y0; y < y1; y++ {
			for x := x0; x < x1; x++ {
				img.SetRGBA(x, y, c)
			}
		}
	}
	return img
}
