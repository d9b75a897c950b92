package client

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"mime/multipart"
	"net/textproto"
	"slices"
	"strconv"

	"github.com/tpsbench/tpsbench/content"
)

// APITranscription is OpenAI's /v1/audio/transcriptions, which vLLM,
// SGLang and whisper servers serve: an audio file in a multipart form,
// its text generated back, streamed as chat-like chunks (vLLM's
// transcription.chunk) or as transcript.text.delta events (OpenAI's).
const APITranscription = "transcription"

var transcriptionAPI = protocol{
	name:        APITranscription,
	help:        "/v1/audio/transcriptions: an audio file a request, its text streamed back; TPS, TTFT and the real-time factor",
	path:        "/v1/audio/transcriptions",
	endpoints:   []string{"/audio/transcriptions"},
	body:        transcriptionBody,
	scanner:     func(*streamState) scanFunc { return scanTranscription },
	transcribes: true,
	budget:      []string{"max_completion_tokens"},
	prompt:      "prompt", // a form field: it guides the wording
}

// transcriptionBody is the form's fields; the audio goes in as its file
// part (multipartBody).
func transcriptionBody(cfg *HTTPConfig, req *Request) map[string]any {
	b := map[string]any{"model": req.Model, "response_format": "json"}
	if cfg.Stream {
		b["stream"], b["stream_include_usage"] = true, true
	}
	setSampling(b, cfg, req, "max_completion_tokens", nil)
	return b // the workload's prompt is not sent: --extra-body prompt=... guides the wording
}

// multipartBody is fields and the audio as a multipart form, each field's
// value as text (a list or an object as JSON), and the form's
// Content-Type.
func multipartBody(fields map[string]any, audio Media) ([]byte, string, error) {
	var b bytes.Buffer
	w := multipart.NewWriter(&b)
	h := textproto.MIMEHeader{}
	h.Set("Content-Disposition", `form-data; name="file"; filename="audio.`+audioFormat(audio.MIME)+`"`)
	h.Set("Content-Type", audio.MIME)
	part, err := w.CreatePart(h)
	if err == nil {
		_, err = part.Write(audio.Data)
	}
	for _, k := range slices.Sorted(maps.Keys(fields)) {
		if err != nil {
			break
		}
		err = w.WriteField(k, formValue(fields[k]))
	}
	if err == nil {
		err = w.Close()
	}
	if err != nil {
		return nil, "", fmt.Errorf("writing the form: %w", err)
	}
	return b.Bytes(), w.FormDataContentType(), nil
}

// formValue is a field's value as a form holds it.
func formValue(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case bool:
		return strconv.FormatBool(v)
	case int:
		return strconv.Itoa(v)
	case float64:
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// oneAudio says why a transcription request's media are not exactly one
// audio, or nil.
func oneAudio(media []Media) error {
	if len(media) != 1 || media[0].Kind() != content.KindAudio {
		return fmt.Errorf("a transcription request sends one audio file; this one has %d media of which %d audio", len(media), countKind(media, content.KindAudio))
	}
	return nil
}

// countKind is how many of media are of kind.
func countKind(media []Media, kind string) int {
	n := 0
	for _, m := range media {
		if m.Kind() == kind {
			n++
		}
	}
	return n
}

// scanTranscription reads one event of a transcription's stream, or the
// whole answer: vLLM's chunks are chat chunks (choices[].delta.content,
// usage at the end), OpenAI's are transcript.text.delta events with the
// usage in transcript.text.done, and a whole answer is {"text": ...}
// with its usage as input and output tokens.
func scanTranscription(data []byte, ci *chunkInfo) error {
	var typ, delta, text []byte
	hasText := false
	err := scanTopObject(data, ci, func(s *scanner, key string) (bool, error) {
		switch key {
		case "type":
			return true, s.strInto(&typ)
		case "delta":
			if s.peek() == '"' {
				return true, s.strInto(&delta)
			}
		case "text":
			if s.peek() == '"' {
				hasText = true
				return true, s.strInto(&text)
			}
		case "choices":
			if s.peek() == '[' {
				return true, s.array(func() error { ci.choices = true; return s.choice(ci) })
			}
		case "usage":
			return true, s.transcriptionUsage(ci)
		}
		return false, nil
	})
	if err != nil {
		return err
	}
	switch string(typ) {
	case "transcript.text.delta":
		ci.addText(delta, false)
	case "transcript.text.done":
		ci.finish = []byte("stop") // its text is the deltas' again
	case "":
		if hasText { // a whole answer
			ci.addText(text, false)
			ci.finish = []byte("stop")
		}
	}
	return nil
}

// transcriptionUsage reads a transcription's usage: OpenAI's chat names
// (vLLM's stream) or input_tokens and output_tokens (OpenAI's); a usage
// of type duration (whisper-1's seconds) counts no tokens.
func (s *scanner) transcriptionUsage(ci *chunkInfo) error {
	if s.peek() != '{' {
		return s.skip()
	}
	seconds := false
	prompt, completion := -1, -1
	err := s.object(func(k []byte) error {
		switch string(k) {
		case "type":
			var typ []byte
			if err := s.strInto(&typ); err != nil {
				return err
			}
			seconds = string(typ) == "duration"
			return nil
		case "prompt_tokens", "input_tokens":
			n, err := s.int()
			prompt = n
			return err
		case "completion_tokens", "output_tokens":
			n, err := s.int()
			completion = n
			return err
		}
		return s.skip()
	})
	if err == nil && !seconds {
		// a count of the input alone says nothing of the output, and the
		// prompt's count stands (as a chat usage without completion_tokens)
		ci.prompt = max(prompt, 0)
		if completion >= 0 {
			ci.hasUsage, ci.completion = true, completion
		}
	}
	return err
}

// readProxiedForm reads what a proxy learns of a transcription: the
// form's stream, model and budget fields, and its audio's length (a
// WAV's). A body that is not a form passes on with nothing read.
func readProxiedForm(body []byte, req Proxied) Proxied {
	first, _, ok := bytes.Cut(body, []byte("\r\n"))
	if !ok || !bytes.HasPrefix(first, []byte("--")) || len(first) > 72 {
		return req
	}
	r := multipart.NewReader(bytes.NewReader(body), string(first[2:]))
	for {
		part, err := r.NextPart()
		if err != nil {
			return req
		}
		value, _ := io.ReadAll(part) // within the body, which the proxy bounds
		switch part.FormName() {
		case "file":
			if s, err := content.WAVSeconds(value); err == nil {
				req.AudioSeconds = s
			}
		case "stream":
			req.Stream = string(value) == "true"
		case "model":
			req.Model = string(value)
		case "max_completion_tokens", "max_tokens":
			if n, err := strconv.Atoi(string(value)); err == nil {
				req.MaxTokens = max(req.MaxTokens, n)
			}
		}
	}
}
