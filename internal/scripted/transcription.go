package scripted

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// serveTranscription answers OpenAI's /v1/audio/transcriptions: a
// multipart form whose file is a WAV, its text streamed back as vLLM
// streams it (transcription chunks shaped as chat chunks, usage when
// stream_include_usage asks, [DONE]) or whole as {"text", "usage"} with
// OpenAI's input and output tokens. The audio is charged as audio in a
// chat is (AudioSeen); the script paces the tokens, its Tokens or the
// form's max_completion_tokens of them. The log's Request holds the
// form's fields as JSON.
func (s *Handler) serveTranscription(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseMultipartForm(32 << 20); err != nil {
		http.Error(w, `{"error":{"message":"want a multipart form"}}`, http.StatusBadRequest)
		return
	}
	f, _, err := r.FormFile("file")
	var audio AudioSeen
	ok := false
	if err == nil {
		data, _ := io.ReadAll(io.LimitReader(f, 64<<20))
		f.Close()
		audio, ok = audioOf(data)
	}
	if !ok {
		http.Error(w, `{"error":{"message":"file: want a WAV file"}}`, http.StatusBadRequest)
		return
	}
	received := time.Now()
	seq, sc, ok := s.next(w)
	if !ok {
		return
	}
	fields := map[string]string{}
	for k, v := range r.MultipartForm.Value {
		fields[k] = v[0]
	}
	raw, _ := json.Marshal(fields)
	stream := fields["stream"] == "true"
	id := fmt.Sprintf("trsc-%d", seq)
	log := &Sent{ID: id, Received: received, Stream: stream, Request: raw, Audios: []AudioSeen{audio}}
	if !s.noLog {
		s.mu.Lock()
		s.sent[id] = log
		s.mu.Unlock()
	}
	n := sc.Tokens
	if n == 0 {
		n, _ = strconv.Atoi(fields["max_completion_tokens"])
	}
	sc.PromptTokens += audio.Tokens
	sc.Reasoning, sc.Usage = 0, sc.Usage || fields["stream_include_usage"] == "true"
	word := sc.Word
	if word == "" {
		word = "tok"
	}
	if stream {
		s.stream(w, r, sc, true, id, fields["model"], word, n, max(sc.PerEvent, 1), log)
		return
	}
	sleepUntil(received.Add(sc.TTFT + time.Duration(max(n-1, 0))*sc.Gap))
	s.logEvent(log, n, false)
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"text":%q,"usage":{"type":"tokens","input_tokens":%d,"output_tokens":%d,"total_tokens":%d}}`,
		strings.Repeat(word, n), sc.PromptTokens, n, sc.PromptTokens+n)
}
