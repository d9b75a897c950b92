package content

import (
	"encoding/binary"
	"testing"
)

// wav is a RIFF WAVE file of the chunks given, each an id and a body,
// written by hand: the header's sizes are the bodies' (odd ones padded).
func wav(chunks ...[2]string) []byte {
	b := []byte("RIFF\x00\x00\x00\x00WAVE")
	for _, c := range chunks {
		b = append(b, c[0]...)
		b = binary.LittleEndian.AppendUint32(b, uint32(len(c[1])))
		b = append(b, c[1]...)
		if len(c[1])%2 == 1 {
			b = append(b, 0)
		}
	}
	return b
}

// fmtChunk is a PCM fmt chunk of byteRate bytes a second.
func fmtChunk(byteRate uint32) [2]string {
	body := make([]byte, 16)
	binary.LittleEndian.PutUint16(body[0:], 1)    // PCM
	binary.LittleEndian.PutUint16(body[2:], 1)    // mono
	binary.LittleEndian.PutUint32(body[4:], 8000) // samples a second
	binary.LittleEndian.PutUint32(body[8:], byteRate)
	return [2]string{"fmt ", string(body)}
}

// TestWAVSeconds: the data chunk's bytes over fmt's byte rate, past any
// chunk between them (an odd one padded to even), the bytes present when
// the header says more; a file that is not a WAV, or has no byte rate
// before its data, is an error.
func TestWAVSeconds(t *testing.T) {
	data := string(make([]byte, 8000))
	for _, c := range []struct {
		name string
		b    []byte
		want float64
	}{
		{"plain", wav(fmtChunk(16000), [2]string{"data", data}), 0.5},
		{"a LIST chunk of odd length between", wav(fmtChunk(16000), [2]string{"LIST", "abc"}, [2]string{"data", data}), 0.5},
		{"cut short", wav(fmtChunk(16000), [2]string{"data", data})[:44+4000], 0.25},
	} {
		got, err := WAVSeconds(c.b)
		if err != nil || got != c.want {
			t.Errorf("%s: %v s, %v; want %v s", c.name, got, err, c.want)
		}
	}
	for name, b := range map[string][]byte{
		"not RIFF":            []byte("OggS\x00\x00\x00\x00WAVE"),
		"data before fmt":     wav([2]string{"data", data}, fmtChunk(16000)),
		"a short fmt":         wav([2]string{"fmt ", "1234"}, [2]string{"data", data}),
		"no data":             wav(fmtChunk(16000)),
		"shorter than a RIFF": []byte("RIFF"),
	} {
		if s, err := WAVSeconds(b); err == nil {
			t.Errorf("%s: read as %v s", name, s)
		}
	}
}

func TestKind(t *testing.T) {
	for mime, want := range map[string]string{"image/png": KindImage, "audio/wav": KindAudio, "video/x-msvideo": KindVideo, "": ""} {
		if got := (Media{MIME: mime}).Kind(); got != want {
			t.Errorf("%q: kind %q, want %q", mime, got, want)
		}
	}
}
