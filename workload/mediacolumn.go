package workload

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/tpsbench/tpsbench/content"
	"github.com/tpsbench/tpsbench/internal/fileread"
)

// dropBadMedia is why a row whose media column cannot be read is dropped.
const dropBadMedia = "whose media column is not a readable image, audio or video of its kind"

// mediaColumns are the dataset columns of media and the kind each holds.
func (c Columns) mediaColumns() [][2]string {
	var out [][2]string
	for _, col := range [][2]string{{c.Image, content.KindImage}, {c.Audio, content.KindAudio}, {c.Video, content.KindVideo}} {
		if col[0] != "" {
			out = append(out, col)
		}
	}
	return out
}

// mediaReader reads the media a dataset's rows name: files relative to
// the dataset's folder, each read once, all of them within maxMediaBytes.
type mediaReader struct {
	dir   string
	files map[string]content.Media
	bytes int
}

func newMediaReader(dir string) *mediaReader {
	return &mediaReader{dir: dir, files: map[string]content.Media{}}
}

// media reads a media column's value for a row: one value or a list of
// them, each a data URL, an http(s) URL (sent as it is), a file's path,
// or Hugging Face's Image and Audio features ({"bytes", "path"}, the
// bytes base64 in JSON or binary in Parquet). ok is false when a value is
// not of kind or cannot be read.
func (m *mediaReader) media(raw json.RawMessage, kind string) (out []content.Media, ok bool) {
	var list []json.RawMessage
	if json.Unmarshal(raw, &list) != nil {
		list = []json.RawMessage{raw}
	}
	for _, v := range list {
		one, err := m.one(v, kind)
		if err != nil || one.Kind() != kind {
			return nil, false
		}
		out = append(out, one)
	}
	return out, len(out) > 0
}

// one reads one media value; a URL of no known extension is taken to
// be of kind.
func (m *mediaReader) one(raw json.RawMessage, kind string) (content.Media, error) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		switch {
		case strings.HasPrefix(s, "data:"):
			return dataURLMedia(s)
		case strings.HasPrefix(s, "http://") || strings.HasPrefix(s, "https://"):
			mime, ok := mediaTypes[strings.ToLower(filepath.Ext(strings.SplitN(s, "?", 2)[0]))]
			if !ok {
				mime = kind + "/*"
			}
			return content.Media{MIME: mime, URL: s}, nil
		}
		return m.file(s)
	}
	var feature struct {
		Bytes json.RawMessage `json:"bytes"`
		Path  string          `json:"path"`
	}
	if err := json.Unmarshal(raw, &feature); err != nil {
		return content.Media{}, fmt.Errorf("a media value %.40s: want a path, a URL or {\"bytes\", \"path\"}", raw)
	}
	var data []byte
	var b64 string
	var bin binaryValue
	switch {
	case json.Unmarshal(feature.Bytes, &bin) == nil && bin.Base64 != "":
		b64 = bin.Base64
	case json.Unmarshal(feature.Bytes, &b64) == nil && b64 != "":
	default:
		return m.file(feature.Path)
	}
	data, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		return content.Media{}, fmt.Errorf("a media value's bytes: %w", err)
	}
	return m.held(sniffed(data, feature.Path))
}

// file reads a media file named relative to the dataset's folder.
func (m *mediaReader) file(name string) (content.Media, error) {
	if name == "" {
		return content.Media{}, fmt.Errorf("a media value with no path")
	}
	path := name
	if !filepath.IsAbs(path) {
		path = filepath.Join(m.dir, name)
	}
	if got, ok := m.files[path]; ok {
		return got, nil
	}
	data, err := fileread.AtMost(path, maxMediaFile)
	if err != nil {
		return content.Media{}, err
	}
	got, err := m.held(sniffed(data, path))
	if err == nil {
		m.files[path] = got
	}
	return got, err
}

// held counts a medium's bytes against the bound of what a run holds.
func (m *mediaReader) held(med content.Media) (content.Media, error) {
	if med.Kind() == content.KindAudio && med.MIME == "audio/wav" {
		var err error
		if med.Seconds, err = content.WAVSeconds(med.Data); err != nil {
			return content.Media{}, err
		}
	}
	if m.bytes += len(med.Data); m.bytes > maxMediaBytes {
		return content.Media{}, fmt.Errorf("more than %d GiB of media", maxMediaBytes>>30)
	}
	return med, nil
}

// sniffed is data as a medium: its type from name's extension, else from
// its first bytes.
func sniffed(data []byte, name string) content.Media {
	mime, ok := mediaTypes[strings.ToLower(filepath.Ext(name))]
	if !ok {
		mime, _, _ = strings.Cut(http.DetectContentType(data), ";")
		switch mime {
		case "audio/wave":
			mime = "audio/wav"
		case "video/avi":
			mime = "video/x-msvideo"
		}
	}
	return content.Media{MIME: mime, Data: data}
}

// dataURLMedia reads a base64 data URL.
func dataURLMedia(s string) (content.Media, error) {
	head, b64, ok := strings.Cut(strings.TrimPrefix(s, "data:"), ";base64,")
	if !ok {
		return content.Media{}, fmt.Errorf("a data URL not in base64")
	}
	data, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		return content.Media{}, fmt.Errorf("a data URL: %w", err)
	}
	med := content.Media{MIME: head, Data: data}
	if head == "audio/wav" {
		med.Seconds, err = content.WAVSeconds(data)
	}
	return med, err
}

// binaryValue is a Parquet byte string that is not text (an image's
// bytes), as JSON: base64 under a key no text column has.
type binaryValue struct {
	Base64 string `json:"$base64"`
}

// textOrBinary gives a byte string as text when it is UTF-8, else as a
// binaryValue, so that binary media survive the trip through JSON.
func textOrBinary(b []byte) any {
	if utf8.Valid(b) {
		return string(b)
	}
	return binaryValue{Base64: base64.StdEncoding.EncodeToString(b)}
}
