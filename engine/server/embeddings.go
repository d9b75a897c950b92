package server

import (
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"time"

	"github.com/tpsbench/tpsbench/engine/sched"
	"github.com/tpsbench/tpsbench/internal/httpserve"
)

// maxInputs bounds an embeddings request's batch, as OpenAI's API does.
const maxInputs = 2048

// embeddingsRequest is OpenAI's embeddings request.
type embeddingsRequest struct {
	Model          string          `json:"model"`
	Input          json.RawMessage `json:"input"`
	EncodingFormat string          `json:"encoding_format"`
	Dimensions     *int            `json:"dimensions"`
	User           string          `json:"user"`
}

// embeddings answers /v1/embeddings: each input's final hidden states
// pooled (Server.Pooling) and normalized to length 1, as llama.cpp's
// server answers it; every input is a request of the scheduler, batched
// with whatever else runs.
func (s *Server) embeddings(w http.ResponseWriter, r *http.Request) {
	arrived := time.Now()
	prompts, format, err := s.parseEmbeddings(w, r)
	if err != nil {
		var nf modelNotFound
		if errors.As(err, &nf) {
			apiErrorCode(w, http.StatusNotFound, "invalid_request_error", "model", "model_not_found", err.Error())
			return
		}
		var br badRequest
		errors.As(err, &br)
		apiError(w, http.StatusBadRequest, "invalid_request_error", br.param, err.Error())
		return
	}
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	tokens := 0
	reason := "abort"
	defer func() { s.metrics.requestDone(tokens, 0, reason, arrived, time.Time{}, nil) }()
	events := make([]<-chan sched.Event, len(prompts))
	for i, p := range prompts {
		events[i], err = s.sched.Submit(ctx, sched.Request{Prompt: p, Pooling: s.pooling()})
		if err != nil {
			status := http.StatusBadRequest
			if errors.Is(err, sched.ErrQueueFull) {
				status = http.StatusTooManyRequests
			}
			apiError(w, status, "server_error", "input", fmt.Sprintf("input %d: %v", i, err))
			return // the ones submitted end with the request's context
		}
		tokens += len(p)
	}
	data := make([]map[string]any, len(prompts))
	for i, ev := range events {
		var vec []float32
		for e := range ev {
			if e.Err != nil {
				apiError(w, http.StatusInternalServerError, "server_error", "", fmt.Sprintf("input %d: %v", i, e.Err))
				return
			}
			vec = e.Embedding
		}
		normalize(vec)
		data[i] = map[string]any{"object": "embedding", "index": i, "embedding": encodeVector(vec, format)}
	}
	reason = "stop"
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data, "model": s.Name,
		"usage": map[string]int{"prompt_tokens": tokens, "total_tokens": tokens}})
}

// pooling is the server's pooling: Server.Pooling, or the last token's.
func (s *Server) pooling() string {
	if s.Pooling != "" {
		return s.Pooling
	}
	return sched.PoolLast
}

// parseEmbeddings reads and checks an embeddings request: each input's
// tokens (a text tokenized with its special tokens, as llama.cpp's server
// does, or token ids) and the encoding asked.
func (s *Server) parseEmbeddings(w http.ResponseWriter, r *http.Request) ([][]int, string, error) {
	body, err := readBody(w, r)
	if err != nil {
		return nil, "", err
	}
	var req embeddingsRequest
	if err := decode(body, &req); err != nil {
		return nil, "", err
	}
	switch {
	case req.Model != "" && req.Model != s.Name:
		return nil, "", modelNotFound{fmt.Sprintf("model %q is not served here (this server has %q)", httpserve.Shorten(req.Model, 128), s.Name)}
	case req.EncodingFormat != "" && req.EncodingFormat != "float" && req.EncodingFormat != "base64":
		return nil, "", badRequest{"encoding_format", fmt.Sprintf("encoding_format %q: want float or base64", httpserve.Shorten(req.EncodingFormat, 32))}
	case req.Dimensions != nil && *req.Dimensions != s.model.Dim:
		return nil, "", badRequest{"dimensions", fmt.Sprintf("dimensions: this model's embeddings have %d; it does not shorten them", s.model.Dim)}
	}
	prompts, err := s.embeddingInputs(req.Input)
	return prompts, req.EncodingFormat, err
}

// embeddingInputs reads input: a text, a list of texts, a list of token
// ids, or a list of such lists.
func (s *Server) embeddingInputs(raw json.RawMessage) ([][]int, error) {
	// each form is tried into its own variable: a failed json.Unmarshal
	// may leave a slice half filled
	var (
		texts, manyTexts []string
		ids, manyIDs     [][]int
		one              string
		oneIDs           []int
	)
	switch {
	case len(raw) == 0 || string(raw) == "null":
		return nil, badRequest{"input", "input is required: a text, a list of texts, or token ids"}
	case json.Unmarshal(raw, &one) == nil:
		texts = []string{one}
	case json.Unmarshal(raw, &manyTexts) == nil:
		texts = manyTexts
	case json.Unmarshal(raw, &oneIDs) == nil:
		ids = [][]int{oneIDs}
	case json.Unmarshal(raw, &manyIDs) == nil:
		ids = manyIDs
	default:
		return nil, badRequest{"input", "input: want a text, a list of texts, or token ids"}
	}
	n := len(texts) + len(ids)
	if n == 0 || n > maxInputs {
		return nil, badRequest{"input", fmt.Sprintf("input holds %d inputs: want 1 to %d", n, maxInputs)}
	}
	for i, t := range texts {
		if t == "" {
			return nil, badRequest{"input", fmt.Sprintf("input %d is empty", i)}
		}
		if least := s.tok.MinTokens(len(t)); least >= s.model.Context {
			return nil, badRequest{"input", fmt.Sprintf("input %d has at least %d tokens, more than the context of %d holds", i, least, s.model.Context)}
		}
		ids = append(ids, s.tok.Encode(t, true))
	}
	for i, p := range ids {
		switch {
		case len(p) == 0:
			return nil, badRequest{"input", fmt.Sprintf("input %d is empty", i)}
		case len(p) >= s.model.Context:
			return nil, badRequest{"input", fmt.Sprintf("input %d has %d tokens; the context holds %d", i, len(p), s.model.Context)}
		}
		for _, t := range p {
			if t < 0 || t >= s.model.Vocab {
				return nil, badRequest{"input", fmt.Sprintf("input %d: token %d is outside the vocabulary of %d", i, t, s.model.Vocab)}
			}
		}
	}
	return ids, nil
}

// normalize scales v to length 1 (llama.cpp's server's default,
// embd_normalize 2); a zero vector stays as it is.
func normalize(v []float32) {
	sum := 0.0
	for _, x := range v {
		sum += float64(x) * float64(x)
	}
	if sum == 0 {
		return
	}
	inv := 1 / math.Sqrt(sum)
	for i := range v {
		v[i] = float32(float64(v[i]) * inv)
	}
}

// encodeVector is v as the request asked: numbers, or base64 of its
// little-endian float32s.
func encodeVector(v []float32, format string) any {
	if format != "base64" {
		return v
	}
	buf := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(buf[4*i:], math.Float32bits(x))
	}
	return base64.StdEncoding.EncodeToString(buf)
}
