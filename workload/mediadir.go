package workload

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/tpsbench/tpsbench/content"
	"github.com/tpsbench/tpsbench/internal/fileread"
)

// mediaTypes are the file extensions a media folder's files are read by.
var mediaTypes = map[string]string{
	".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif", ".webp": "image/webp", ".bmp": "image/bmp",
	".wav": "audio/wav", ".mp3": "audio/mpeg", ".flac": "audio/flac", ".ogg": "audio/ogg", ".m4a": "audio/mp4",
	".mp4": "video/mp4", ".avi": "video/x-msvideo", ".webm": "video/webm", ".mov": "video/quicktime", ".mkv": "video/x-matroska",
}

// maxMediaFile bounds one media file: a wrong path (/dev/zero) fails
// with a message, and an hour of WAV (115 MB) or a long video fits.
const maxMediaFile = 512 << 20

// maxMediaBytes bounds what a run reads of media files into memory: they
// are sent again and again, so they are held, not streamed from disk.
const maxMediaBytes = 2 << 30

// MediaFile reads one media file of a known extension: its type from the
// extension (its first bytes must be that format's), an audio WAV's length
// from its header.
func MediaFile(path string) (content.Media, error) {
	mime, ok := mediaTypes[strings.ToLower(filepath.Ext(path))]
	if !ok {
		return content.Media{}, fmt.Errorf("%s: not a media file tpsbench knows by its extension (%s)", path, mediaExtensions())
	}
	data, err := fileread.AtMost(path, maxMediaFile)
	if err != nil {
		return content.Media{}, err
	}
	if err := checkMagic(path, mime, data); err != nil {
		return content.Media{}, err
	}
	m := content.Media{MIME: mime, Data: data}
	if mime == "audio/wav" {
		if m.Seconds, err = content.WAVSeconds(data); err != nil {
			return content.Media{}, fmt.Errorf("%s: %w", path, err)
		}
	}
	return m, nil
}

// MediaDir reads the files of kind (image, audio or video) in dir, in the
// order of their names, for requests to cycle through; skipped counts
// the files of other kinds or extensions left out.
func MediaDir(dir, kind string) (pool []content.Media, skipped int, err error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, 0, fmt.Errorf("reading the media folder: %w", err)
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name() < entries[j].Name() })
	total := 0
	for _, e := range entries {
		mime, ok := mediaTypes[strings.ToLower(filepath.Ext(e.Name()))]
		if !e.Type().IsRegular() || !ok || !strings.HasPrefix(mime, kind+"/") {
			skipped++
			continue
		}
		m, err := MediaFile(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, 0, err
		}
		if total += len(m.Data); total > maxMediaBytes {
			return nil, 0, fmt.Errorf("%s: more than %d GiB of %s files: they are held in memory to be sent again and again; give a folder of fewer", dir, maxMediaBytes>>30, kind)
		}
		pool = append(pool, m)
	}
	if len(pool) == 0 {
		return nil, skipped, fmt.Errorf("%s holds no %s files (%s)", dir, kind, mediaExtensions())
	}
	return pool, skipped, nil
}

// mediaExtensions lists the extensions MediaFile reads.
func mediaExtensions() string {
	var exts []string
	for ext := range mediaTypes {
		exts = append(exts, ext)
	}
	sort.Strings(exts)
	return strings.Join(exts, " ")
}
