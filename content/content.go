// Package content holds what a request carries besides its settings:
// chat messages and media (images, audio, video). It is a leaf: the
// workload makes these, the client sends them, and neither needs the
// other for it.
package content

import "strings"

// Message is one chat turn, as the OpenAI chat API writes it.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

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
