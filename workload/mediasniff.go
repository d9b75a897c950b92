package workload

import (
	"bytes"
	"fmt"
)

// mediaMagic says, by MIME type, whether a file's first bytes are those
// of its format: a file named .png that holds text is sent as an image
// that no server decodes, and every request fails for it.
var mediaMagic = map[string]func(b []byte) bool{
	"image/png":        prefix("\x89PNG\r\n\x1a\n"),
	"image/jpeg":       prefix("\xff\xd8\xff"),
	"image/gif":        func(b []byte) bool { return prefix("GIF87a")(b) || prefix("GIF89a")(b) },
	"image/webp":       riff("WEBP"),
	"image/bmp":        prefix("BM"),
	"audio/wav":        riff("WAVE"),
	"audio/mpeg":       func(b []byte) bool { return prefix("ID3")(b) || len(b) >= 2 && b[0] == 0xff && b[1]&0xe0 == 0xe0 },
	"audio/flac":       prefix("fLaC"),
	"audio/ogg":        prefix("OggS"),
	"audio/mp4":        isoBox,
	"video/mp4":        isoBox,
	"video/quicktime":  isoBox,
	"video/x-msvideo":  riff("AVI "),
	"video/webm":       prefix("\x1a\x45\xdf\xa3"),
	"video/x-matroska": prefix("\x1a\x45\xdf\xa3"),
}

func prefix(p string) func([]byte) bool {
	return func(b []byte) bool { return bytes.HasPrefix(b, []byte(p)) }
}

// riff is a RIFF file of the form given (WAVE, AVI, WEBP).
func riff(form string) func([]byte) bool {
	return func(b []byte) bool { return len(b) >= 12 && string(b[:4]) == "RIFF" && string(b[8:12]) == form }
}

// isoBox is an ISO base media file (MP4, M4A, QuickTime): a first box of
// a type such files begin with.
func isoBox(b []byte) bool {
	if len(b) < 8 {
		return false
	}
	switch string(b[4:8]) {
	case "ftyp", "moov", "mdat", "wide", "free", "skip":
		return true
	}
	return false
}

// checkMagic says what is wrong with data as a file of mime, if anything.
func checkMagic(path, mime string, data []byte) error {
	if is, ok := mediaMagic[mime]; ok && !is(data) {
		return fmt.Errorf("%s: not a %s file: it begins %q (a file of another kind, named for this one?)", path, mime, data[:min(len(data), 12)])
	}
	return nil
}
