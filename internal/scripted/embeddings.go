package scripted

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"strings"
	"time"
)

// EmbeddingDims is the length of the vectors the scripted server answers.
const EmbeddingDims = 8

// serveEmbeddings answers OpenAI's /v1/embeddings: a vector an input,
// after the script's TTFT (its processing time), charging a token a word
// of each input unless the script names the prompt tokens. The log's one
// event is when the answer was written; Tokens holds the inputs' count.
func (s *Handler) serveEmbeddings(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Model          string          `json:"model"`
		Input          json.RawMessage `json:"input"`
		EncodingFormat string          `json:"encoding_format"`
	}
	raw, err := io.ReadAll(io.LimitReader(r.Body, 16<<20))
	if err == nil {
		err = json.Unmarshal(raw, &body)
	}
	inputs, ok := embeddingInputs(body.Input)
	if err != nil || !ok {
		http.Error(w, `{"error":{"message":"input: want a string or a list of strings"}}`, http.StatusBadRequest)
		return
	}
	received := time.Now()
	seq, sc, ok := s.next(w)
	if !ok {
		return
	}
	id := fmt.Sprintf("embd-%d", seq)
	tokens := sc.PromptTokens
	if tokens == 0 {
		for _, in := range inputs {
			tokens += max(1, len(strings.Fields(in)))
		}
	}
	log := &Sent{ID: id, Received: received, Request: raw, Tokens: []int{len(inputs)}}
	data := make([]map[string]any, len(inputs))
	for i := range inputs {
		vec := make([]float32, EmbeddingDims)
		for d := range vec {
			vec[d] = float32(i+1) / float32(d+1)
		}
		var embedding any = vec
		if body.EncodingFormat == "base64" {
			buf := make([]byte, 4*len(vec))
			for d, v := range vec {
				binary.LittleEndian.PutUint32(buf[4*d:], math.Float32bits(v))
			}
			embedding = base64.StdEncoding.EncodeToString(buf)
		}
		data[i] = map[string]any{"object": "embedding", "index": i, "embedding": embedding}
	}
	out, _ := json.Marshal(map[string]any{"id": id, "object": "list", "model": body.Model, "data": data,
		"usage": map[string]any{"prompt_tokens": tokens, "total_tokens": tokens}})
	sleepUntil(received.Add(sc.TTFT))
	w.Header().Set("Content-Type", "application/json")
	log.Events = []time.Time{time.Now()}
	if !s.noLog {
		s.mu.Lock()
		s.sent[id] = log
		s.mu.Unlock()
	}
	w.Write(out)
}

// embeddingInputs reads an embeddings request's input: one string or a
// list of them.
func embeddingInputs(raw json.RawMessage) ([]string, bool) {
	var one string
	if json.Unmarshal(raw, &one) == nil {
		return []string{one}, true
	}
	var many []string
	if json.Unmarshal(raw, &many) == nil && len(many) > 0 {
		return many, true
	}
	return nil, false
}
