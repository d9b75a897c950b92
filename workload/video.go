package workload

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"math/rand/v2"

	"github.com/tpsbench/tpsbench/content"
)

// videoPool is how many distinct videos of a shape are made.
const videoPool = 4

// maxVideoFrames bounds a synthetic video's frames: vLLM samples 32 by
// default, Qwen2-VL up to 768 at 2 per second.
const maxVideoFrames = 1024

// VideoShape is a synthetic video's frame size, frame count and rate.
type VideoShape struct {
	Size   ImageSize
	Frames int
	FPS    float64
}

// SyntheticVideos makes the videos requests of one shape carry: pool
// distinct Motion-JPEG AVI files (a square moving over a gradient, drawn
// from seed), a container and codec every video reader decodes (FFmpeg,
// OpenCV, PyAV, decord) with no encoder beyond JPEG.
func SyntheticVideos(shape VideoShape, seed uint64) ([]content.Media, error) {
	if shape.Frames < 1 || shape.Frames > maxVideoFrames || !(shape.FPS > 0 && shape.FPS <= 240) {
		return nil, fmt.Errorf("a video of %d frames at %g fps: want 1 to %d frames at more than 0 and at most 240 fps", shape.Frames, shape.FPS, maxVideoFrames)
	}
	if shape.Size.W < 1 || shape.Size.H < 1 || shape.Size.W > maxImageSide || shape.Size.H > maxImageSide {
		return nil, fmt.Errorf("video frames of %s: want each side from 1 to %d pixels", shape.Size, maxImageSide)
	}
	out := make([]content.Media, videoPool)
	for i := range out {
		r := rand.New(rand.NewPCG(seed, uint64(i)|1<<60))
		base := drawImage(shape.Size, r)
		frames := make([][]byte, shape.Frames)
		for f := range frames {
			frame := movingSquare(base, f, shape.Frames)
			var b bytes.Buffer
			if err := jpeg.Encode(&b, frame, &jpeg.Options{Quality: 80}); err != nil {
				return nil, fmt.Errorf("encoding a video frame: %w", err)
			}
			frames[f] = b.Bytes()
		}
		out[i] = content.Media{MIME: "video/x-msvideo", Data: motionJPEG(frames, shape), Seconds: float64(shape.Frames) / shape.FPS}
	}
	return out, nil
}

// movingSquare is base with a white square at frame f of n's place along
// the diagonal.
func movingSquare(base *image.RGBA, f, n int) *image.RGBA {
	img := image.NewRGBA(base.Rect)
	copy(img.Pix, base.Pix)
	w, h := base.Rect.Dx(), base.Rect.Dy()
	side := max(1, min(w, h)/8)
	x0, y0 := (w-side)*f/max(n-1, 1), (h-side)*f/max(n-1, 1)
	for y := y0; y < y0+side; y++ {
		for x := x0; x < x0+side; x++ {
			img.SetRGBA(x, y, color.RGBA{255, 255, 255, 255})
		}
	}
	return img
}

// motionJPEG wraps JPEG frames in an AVI file: a header list (the main
// header, one video stream of codec MJPG), the frames as 00dc chunks,
// and an index of keyframes.
func motionJPEG(frames [][]byte, shape VideoShape) []byte {
	le := binary.LittleEndian
	w, h := uint32(shape.Size.W), uint32(shape.Size.H)
	largest := 0
	for _, f := range frames {
		largest = max(largest, len(f))
	}
	avih := make([]byte, 56)
	le.PutUint32(avih[0:], uint32(1e6/shape.FPS))
	le.PutUint32(avih[12:], 0x10) // AVIF_HASINDEX
	le.PutUint32(avih[16:], uint32(len(frames)))
	le.PutUint32(avih[24:], 1) // streams
	le.PutUint32(avih[28:], uint32(largest))
	le.PutUint32(avih[32:], w)
	le.PutUint32(avih[36:], h)
	scale, rate := uint32(1000), uint32(shape.FPS*1000+0.5) // rate/scale is the frame rate
	strh := make([]byte, 56)
	copy(strh[0:], "vidsMJPG")
	le.PutUint32(strh[20:], scale)
	le.PutUint32(strh[24:], rate)
	le.PutUint32(strh[32:], uint32(len(frames)))
	le.PutUint32(strh[36:], uint32(largest))
	le.PutUint32(strh[40:], 0xFFFFFFFF) // default quality
	le.PutUint16(strh[52:], uint16(w))
	le.PutUint16(strh[54:], uint16(h))
	strf := make([]byte, 40) // BITMAPINFOHEADER
	le.PutUint32(strf[0:], 40)
	le.PutUint32(strf[4:], w)
	le.PutUint32(strf[8:], h)
	le.PutUint16(strf[12:], 1)
	le.PutUint16(strf[14:], 24)
	copy(strf[16:], "MJPG")
	le.PutUint32(strf[20:], w*h*3)

	var movi, idx bytes.Buffer
	movi.WriteString("movi")
	for _, f := range frames {
		idx.WriteString("00dc")
		idx.Write(le.AppendUint32(le.AppendUint32(nil, 0x10), uint32(movi.Len()))) // AVIIF_KEYFRAME, offset from "movi"
		idx.Write(le.AppendUint32(nil, uint32(len(f))))
		movi.Write(riffChunk("00dc", f))
	}
	strl := list("strl", riffChunk("strh", strh), riffChunk("strf", strf))
	hdrl := list("hdrl", riffChunk("avih", avih), strl)
	body := append([]byte("AVI "), hdrl...)
	body = append(body, riffChunk("LIST", movi.Bytes())...)
	body = append(body, riffChunk("idx1", idx.Bytes())...)
	return riffChunk("RIFF", body)
}

// riffChunk is a RIFF chunk: its id, its size, its data padded to an
// even length.
func riffChunk(id string, data []byte) []byte {
	out := make([]byte, 8, 8+len(data)+1)
	copy(out, id)
	binary.LittleEndian.PutUint32(out[4:], uint32(len(data)))
	out = append(out, data...)
	if len(data)%2 == 1 {
		out = append(out, 0)
	}
	return out
}

// list is a RIFF LIST of kind holding chunks.
func list(kind string, chunks ...[]byte) []byte {
	data := []byte(kind)
	for _, c := range chunks {
		data = append(data, c...)
	}
	return riffChunk("LIST", data)
}

// AVIFrames is the frames of a Motion-JPEG AVI file as its movi list
// holds them (each frame's JPEG data), and its frame rate from the video
// stream's header: what a server that samples frames reads.
func AVIFrames(b []byte) (frames [][]byte, fps float64, err error) {
	if len(b) < 12 || string(b[0:4]) != "RIFF" || string(b[8:12]) != "AVI " {
		return nil, 0, errors.New("not a RIFF AVI file")
	}
	err = walkRIFF(b[12:], func(id, kind string, data []byte) {
		switch {
		case id == "strh" && len(data) >= 28 && string(data[0:4]) == "vids":
			if scale := binary.LittleEndian.Uint32(data[20:]); scale > 0 {
				fps = float64(binary.LittleEndian.Uint32(data[24:])) / float64(scale)
			}
		case kind == "movi" && (id == "00dc" || id == "00db"):
			frames = append(frames, data)
		}
	})
	if err == nil && len(frames) == 0 {
		err = errors.New("an AVI file with no video frames")
	}
	return frames, fps, err
}

// walkRIFF calls fn with every chunk of b and of the lists within it, a
// chunk with the kind of the list that holds it ("" at the top).
func walkRIFF(b []byte, fn func(id, kind string, data []byte)) error {
	var walk func(b []byte, kind string, depth int) error
	walk = func(b []byte, kind string, depth int) error {
		if depth > 8 {
			return errors.New("RIFF lists nested deeper than 8")
		}
		for p := 0; p+8 <= len(b); {
			id, size := string(b[p:p+4]), int(binary.LittleEndian.Uint32(b[p+4:]))
			if size > len(b)-p-8 {
				return fmt.Errorf("RIFF chunk %q of %d bytes past the file's end", id, size)
			}
			data := b[p+8 : p+8+size]
			if id == "LIST" && size >= 4 {
				if err := walk(data[4:], string(data[:4]), depth+1); err != nil {
					return err
				}
			} else {
				fn(id, kind, data)
			}
			p += 8 + size + size%2
		}
		return nil
	}
	return walk(b, "", 0)
}
