package content

import (
	"encoding/binary"
	"errors"
)

// WAVSeconds is a WAV file's length in seconds, read from its header
// (fmt's byte rate, data's size: the data present, when a stream's
// header overstates it).
func WAVSeconds(b []byte) (float64, error) {
	if len(b) < 12 || string(b[0:4]) != "RIFF" || string(b[8:12]) != "WAVE" {
		return 0, errors.New("not a RIFF WAVE file")
	}
	byteRate := uint32(0)
	for p := 12; p+8 <= len(b); {
		id, size := string(b[p:p+4]), int64(binary.LittleEndian.Uint32(b[p+4:]))
		body := b[p+8:]
		switch id {
		case "fmt ":
			if size < 16 || len(body) < 16 {
				return 0, errors.New("a WAV fmt chunk shorter than 16 bytes")
			}
			byteRate = binary.LittleEndian.Uint32(body[8:])
		case "data":
			if byteRate == 0 {
				return 0, errors.New("a WAV file with no byte rate before its data")
			}
			return float64(min(size, int64(len(body)))) / float64(byteRate), nil
		}
		p += 8 + int(min(size+size&1, int64(len(b)))) // chunks are padded to even sizes
	}
	return 0, errors.New("a WAV file with no data chunk")
}
