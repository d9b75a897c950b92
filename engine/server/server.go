// Package server is the engine's OpenAI-compatible HTTP API:
// /v1/completions and /v1/chat/completions (streamed with usage chunks, or
// whole), /v1/models and /health. tpsbench measures it over loopback
// exactly as it measures any other server.
package server

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	chatfmt "github.com/tpsbench/tpsbench/engine/chat"
	"github.com/tpsbench/tpsbench/engine/llama"
	"github.com/tpsbench/tpsbench/engine/sched"
	"github.com/tpsbench/tpsbench/engine/tokenizer"
	"github.com/tpsbench/tpsbench/internal/httpserve"
)

// Server serves one model.
type Server struct {
	Name string // the model name clients ask for
	// Synthetic says the weights are dummy ones, which /v1/models says:
	// the answers are noise, not a bug.
	Synthetic bool
	// APIKey, when set, is required as a bearer token on every route but
	// /health, compared in constant time.
	APIKey  string
	model   *llama.Model
	tok     *tokenizer.Tokenizer
	sched   *sched.Scheduler
	mux     *http.ServeMux
	start   time.Time
	metrics *metrics
	// Chat builds chat prompts: the family of the model's
	// tokenizer.chat_template, chatfmt.Plain for a model without one
	Chat chatfmt.Template
	// ChatNote says why Chat is not the model's own template, when it is not
	ChatNote string
	// Reasoning makes the first Reasoning tokens of every chat answer
	// reasoning: streamed as reasoning_content, returned beside the
	// content, counted in usage's completion_tokens_details, as vLLM
	// serves a reasoning model (DeepSeek-R1, Qwen3). It lets a client's
	// reasoning figures be tried end to end with any model.
	Reasoning int
	// ThinkTags splits every chat answer at its </think> tag, as vLLM's
	// deepseek_r1 and qwen3 reasoning parsers do: before it (an opening
	// <think> dropped) is reasoning_content, after it the content. For
	// models that reason in those tags: DeepSeek-R1 and its distilled
	// models, Qwen3.
	ThinkTags bool
	// Pooling is how /v1/embeddings pools a prompt's hidden states
	// (sched.PoolMean, PoolLast, PoolCLS; "" takes the last token's).
	Pooling string
}

// New makes a server for a model; it takes ownership of the scheduler.
func New(name string, m *llama.Model, tok *tokenizer.Tokenizer, s *sched.Scheduler) *Server {
	srv := &Server{Name: name, model: m, tok: tok, sched: s, mux: http.NewServeMux(), start: time.Now(), metrics: newMetrics(), Chat: chatfmt.Plain}
	srv.mux.HandleFunc("POST /v1/completions", func(w http.ResponseWriter, r *http.Request) { srv.generate(w, r, false) })
	srv.mux.HandleFunc("POST /v1/chat/completions", func(w http.ResponseWriter, r *http.Request) { srv.generate(w, r, true) })
	srv.mux.HandleFunc("POST /v1/embeddings", srv.embeddings)
	srv.mux.HandleFunc("GET /v1/models", srv.models)
	srv.mux.HandleFunc("GET /v1/models/{id...}", srv.modelByID)
	srv.mux.HandleFunc("GET /metrics", srv.serveMetrics)
	srv.mux.HandleFunc("POST /tokenize", srv.tokenize)
	srv.mux.HandleFunc("GET /health", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusOK) })
	srv.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		apiError(w, http.StatusNotFound, "not_found", "", fmt.Sprintf("no route for %s %s", r.Method, r.URL.Path))
	})
	return srv
}

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if s.APIKey != "" && r.URL.Path != "/health" {
		if !httpserve.BearerOK(r, s.APIKey) {
			apiError(w, http.StatusUnauthorized, "authentication_error", "", "a valid API key is required (Authorization: Bearer ...)")
			return
		}
	}
	s.mux.ServeHTTP(w, r)
}

func (s *Server) models(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": []any{s.modelObject()}})
}

// modelByID answers GET /v1/models/{id}: the model, or a 404.
func (s *Server) modelByID(w http.ResponseWriter, r *http.Request) {
	if id := r.PathValue("id"); id != s.Name {
		apiErrorCode(w, http.StatusNotFound, "invalid_request_error", "model", "model_not_found",
			fmt.Sprintf("model %q is not served here (this server has %q)", httpserve.Shorten(id, 128), s.Name))
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(s.modelObject())
}

func (s *Server) modelObject() map[string]any {
	m := map[string]any{"id": s.Name, "object": "model", "created": s.start.Unix(), "owned_by": "tpsbench", "max_model_len": s.model.Context,
		"chat_template": s.Chat.Name}
	if s.ChatNote != "" {
		m["chat_template_note"] = s.ChatNote
	}
	if s.Synthetic {
		m["weights"] = "synthetic: random weights of a real model's shape, for its speed; the text they make is noise"
	}
	return m
}

// apiError writes an OpenAI-style error.
func apiError(w http.ResponseWriter, status int, typ, param, msg string) {
	apiErrorCode(w, status, typ, param, status, msg)
}

// apiErrorCode is apiError with OpenAI's error code (a name such as
// "model_not_found", or the status).
func apiErrorCode(w http.ResponseWriter, status int, typ, param string, code any, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	body := map[string]any{"error": map[string]any{"message": msg, "type": typ, "param": nilIfEmpty(param), "code": code}}
	_ = json.NewEncoder(w).Encode(body)
}

// modelNotFound is a request for a model this server does not serve: a
// 404, as OpenAI and vLLM answer it.
type modelNotFound struct{ msg string }

func (m modelNotFound) Error() string { return m.msg }

func nilIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func newID(prefix string) string {
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	return prefix + hex.EncodeToString(b)
}

func (s *Server) generate(w http.ResponseWriter, r *http.Request, chat bool) {
	arrived := time.Now()
	c, err := s.parse(w, r, chat)
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
	req, prompt, stops := c.request, c.prompt, c.stops
	temp, topP, topK := float32(1), float32(1), 0
	if req.Temperature != nil {
		temp = *req.Temperature
	}
	if req.TopP != nil {
		topP = *req.TopP
	}
	if req.TopK != nil && *req.TopK > 0 {
		topK = *req.TopK
	}
	var seed uint64
	if req.Seed != nil {
		seed = uint64(*req.Seed)
	} else {
		var b [8]byte
		_, _ = rand.Read(b[:])
		seed = binary.LittleEndian.Uint64(b[:])
	}
	ctx, cancel := context.WithCancel(r.Context()) // a client gone or a stop string ends the sequence
	defer cancel()
	events, err := s.sched.Submit(ctx, sched.Request{
		Prompt: prompt, MaxTokens: *req.MaxTokens, IgnoreEOS: req.IgnoreEOS, EOG: s.tok.EOG,
		Sampler: llama.NewSampler(temp, topP, topK, seed), Logprobs: c.logprobs, TopLogprobs: c.topLogprobs,
	})
	if err != nil {
		status := http.StatusBadRequest
		if errors.Is(err, sched.ErrQueueFull) {
			status = http.StatusTooManyRequests
		}
		apiError(w, status, "server_error", "", err.Error())
		return
	}
	out := &response{
		w: w, chat: chat, id: newID(map[bool]string{true: "chatcmpl-", false: "cmpl-"}[chat]), model: s.Name, created: time.Now().Unix(),
		stream: req.Stream, usage: req.StreamOptions != nil && req.StreamOptions.IncludeUsage, prompt: len(prompt),
		stops: stops, tok: s.tok, logprobs: c.logprobs,
	}
	if chat {
		out.reasoning = s.Reasoning
		if s.ThinkTags {
			out.thinking = thinkOpening
		}
	}
	out.begin()
	var first, prev time.Time
	var gaps []time.Duration
	reason := "abort"
	defer func() { s.metrics.requestDone(len(prompt), out.made, reason, arrived, first, gaps) }()
	for ev := range events {
		if ev.Done {
			if ev.Err != nil && ctx.Err() == nil {
				out.fail(ev.Err)
				return
			}
			if ev.Err == nil {
				reason = ev.Reason
			}
			out.cached = ev.Cached
			out.end(ev.Reason)
			return
		}
		now := time.Now()
		if ev.Wait != nil {
			s.metrics.firstToken(ev.Wait)
		}
		if first.IsZero() {
			first = now
		} else {
			gaps = append(gaps, now.Sub(prev))
		}
		prev = now
		if out.token(ev.Token, ev.Logprob) {
			cancel() // a stop string matched
			reason = "stop"
			out.end("stop")
			return
		}
	}
}
