package workload

import "strings"

// Media is an image, a piece of audio or a video sent with a request's
// prompt, or the audio a transcription request sends.
type Media struct {
	MIME string // image/png, audio/wav, video/x-msvideo...
	Data []byte
	// URL, when set, is where the server fetches it (an http URL a
	// dataset named), sent in place of Data.
	URL string
	// Seconds is the audio's or the video's length, when known (a WAV's
	// header, a synthetic signal's); 0 for an image or a length unknown.
	Seconds float64
}

// The kinds of media, as Media.Kind names them.
const (
	KindImage = "image"
	KindAudio = "audio"
	KindVideo = "video"
)

// Kind is the medium: image, audio or video, from its MIME type.
func (m Media) Kind() string {
	kind, _, _ := strings.Cut(m.MIME, "/")
	return kind
}

// WithMedia sends each request of Source with PerRequest media of Pool,
// in turn by the request's index, after any the source's item carries:
// wrapping twice sends images and audio together.
type WithMedia struct {
	Source
	Pool       []Media
	PerRequest int
}

// Item implements Source.
func (w WithMedia) Item(seq int, warmup bool) Item {
	it := w.Source.Item(seq, warmup)
	media := make([]Media, len(it.Media), len(it.Media)+w.PerRequest)
	copy(media, it.Media)
	for i := range w.PerRequest {
		media = append(media, w.Pool[(seq*w.PerRequest+i)%len(w.Pool)])
	}
	it.Media = media
	return it
}
