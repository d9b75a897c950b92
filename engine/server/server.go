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
	"github.com/tpsbench/tpsbench/internal/httpserve"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	chatfmt "github.com/tpsbench/tpsbench/engine/chat"
	"github.com/tpsbench/tpsbench/engine/llama"
	"github.com/tpsbench/tpsbench/engine/sched"
	"github.com/tpsbench/tpsbench/engine/tokenizer"
)

// Limits on requests.
const (
	maxBody  = 4 << 20
	maxStops = 8
)

// Server serves one model.
type Server struct {
	Name string // the model name clients ask for
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
}

// New makes a server for a model; it takes ownership of the scheduler.
func New(name string, m *llama.Model, tok *tokenizer.Tokenizer, s *sched.Scheduler) *Server {
	srv := &Server{Name: name, model: m, tok: tok, sched: s, mux: http.NewServeMux(), start: time.Now(), metrics: newMetrics(), Chat: chatfmt.Plain}
	srv.mux.HandleFunc("POST /v1/completions", func(w http.ResponseWriter, r *http.Request) { srv.generate(w, r, false) })
	srv.mux.HandleFunc("POST /v1/chat/completions", func(w http.ResponseWriter, r *http.Request) { srv.generate(w, r, true) })
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

// request is the union of the completion and chat request fields we honour.
type request struct {
	Model         string          `json:"model"`
	Prompt        json.RawMessage `json:"prompt"`
	Messages      []message       `json:"messages"`
	MaxTokens     *int            `json:"max_tokens"`
	MaxCompletion *int            `json:"max_completion_tokens"`
	Temperature   *float32        `json:"temperature"`
	TopP          *float32        `json:"top_p"`
	TopK          *int            `json:"top_k"`
	Seed          *int64          `json:"seed"`
	Stop          json.RawMessage `json:"stop"`
	Stream        bool            `json:"stream"`
	StreamOptions *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
	IgnoreEOS bool `json:"ignore_eos"`
	N         *int `json:"n"`
	// chat: logprobs true and top_logprobs N; completions: logprobs N
	Logprobs    json.RawMessage `json:"logprobs"`
	TopLogprobs json.RawMessage `json:"top_logprobs"`
	// fields of the API this engine does not implement: refused by name,
	// not ignored, so that a client never takes output it did not ask for
	Tools          json.RawMessage `json:"tools"`
	ToolChoice     json.RawMessage `json:"tool_choice"`
	Functions      json.RawMessage `json:"functions"`
	ResponseFormat json.RawMessage `json:"response_format"`
	Echo           json.RawMessage `json:"echo"`
	BestOf         json.RawMessage `json:"best_of"`
	Suffix         json.RawMessage `json:"suffix"`
}

// unsupported names the first field of req the engine does not implement
// (absent, null, or the value that means "not wanted" is fine).
func (req *request) unsupported() string {
	for _, f := range []struct {
		name, harmless string
		raw            json.RawMessage
	}{{"tools", "[]", req.Tools}, {"tool_choice", `"none"`, req.ToolChoice}, {"functions", "[]", req.Functions},
		{"response_format", `{"type":"text"}`, req.ResponseFormat}, {"echo", "false", req.Echo},
		{"best_of", "1", req.BestOf},
		{"suffix", `""`, req.Suffix}} {
		v := strings.Join(strings.Fields(string(f.raw)), "")
		if v != "" && v != "null" && v != f.harmless {
			return f.name
		}
	}
	return ""
}

type message struct {
	Role    string   `json:"role"`
	Content *content `json:"content"`
}

// roles are the chat roles a message may have.
var roles = map[string]bool{"system": true, "developer": true, "user": true, "assistant": true, "tool": true}

// checked is a request that passed every check, with its prompt in
// tokens, its stop strings and its logprob fields read.
type checked struct {
	*request
	prompt      []int
	stops       []string
	logprobs    bool
	topLogprobs int
}

func (s *Server) parse(w http.ResponseWriter, r *http.Request, chat bool) (*checked, error) {
	body, err := readBody(w, r)
	if err != nil {
		return nil, err
	}
	return s.parseBody(body, chat)
}

// parseBody decodes and checks a request body; every error is a
// badRequest naming the field at fault.
func (s *Server) parseBody(body []byte, chat bool) (*checked, error) {
	var req request
	if err := decode(body, &req); err != nil {
		return nil, err
	}
	if req.Model != "" && req.Model != s.Name {
		return nil, modelNotFound{fmt.Sprintf("model %q is not served here (this server has %q)", httpserve.Shorten(req.Model, 128), s.Name)}
	}
	if name := req.unsupported(); name != "" {
		return nil, badRequest{name, fmt.Sprintf("%s is not implemented by this engine", name)}
	}
	if req.N != nil && *req.N != 1 {
		return nil, badRequest{"n", "n must be 1"}
	}
	var text string
	var ids []int // a prompt given as token ids
	if chat {
		if len(req.Messages) == 0 {
			return nil, badRequest{"messages", "messages must hold at least one message"}
		}
		if err := checkMessages(req.Messages); err != nil {
			return nil, err
		}
		text = s.chatPrompt(req.Messages)
	} else {
		if len(req.Prompt) == 0 {
			return nil, badRequest{"prompt", "prompt is required"}
		}
		var err error
		if text, ids, err = s.promptOf(req.Prompt); err != nil {
			return nil, err
		}
	}
	var stops []string
	if len(req.Stop) > 0 && string(req.Stop) != "null" {
		var one string
		if json.Unmarshal(req.Stop, &one) == nil {
			stops = []string{one}
		} else if json.Unmarshal(req.Stop, &stops) != nil {
			return nil, badRequest{"stop", "stop must be a string or a list of strings"}
		}
		if len(stops) > maxStops {
			return nil, badRequest{"stop", fmt.Sprintf("at most %d stop strings", maxStops)}
		}
		for _, st := range stops {
			if st == "" {
				return nil, badRequest{"stop", "stop strings must not be empty"}
			}
		}
	}
	if req.MaxTokens == nil {
		req.MaxTokens = req.MaxCompletion
	}
	if req.MaxTokens == nil {
		n := 16 // OpenAI's default for completions
		if chat {
			n = s.model.Context
		}
		req.MaxTokens = &n
	}
	if least := s.tok.MinTokens(len(text)); least >= s.model.Context {
		return nil, badRequest{"prompt", fmt.Sprintf("the prompt has at least %d tokens (%d bytes, no token counted as more than %d); the context holds %d",
			least, len(text), tokenizer.MaxCountedPiece, s.model.Context)}
	}
	prompt := ids
	if prompt == nil {
		prompt = s.tok.Encode(text, true)
	}
	room := s.model.Context - len(prompt)
	switch {
	case *req.MaxTokens < 1:
		return nil, badRequest{"max_tokens", "max_tokens must be at least 1"}
	case room <= 0:
		return nil, badRequest{"prompt", fmt.Sprintf("the prompt has %d tokens; the context holds %d", len(prompt), s.model.Context)}
	case *req.MaxTokens > room:
		if req.MaxCompletion == nil && !chat || *req.MaxTokens > s.model.Context {
			return nil, badRequest{"max_tokens", fmt.Sprintf("max_tokens %d plus the prompt's %d tokens exceed the context of %d", *req.MaxTokens, len(prompt), s.model.Context)}
		}
		*req.MaxTokens = room
	}
	if t := req.Temperature; t != nil && (*t < 0 || *t > 100 || *t != *t) {
		return nil, badRequest{"temperature", "temperature must be between 0 and 100"}
	}
	if p := req.TopP; p != nil && (*p <= 0 || *p > 1 || *p != *p) {
		return nil, badRequest{"top_p", "top_p must be in (0, 1]"}
	}
	if k := req.TopK; k != nil && (*k < -1 || *k > s.model.Vocab) {
		return nil, badRequest{"top_k", fmt.Sprintf("top_k must be -1, 0 or up to the vocabulary size %d", s.model.Vocab)}
	}
	want, top, err := req.logprobsWanted(chat)
	if err != nil {
		return nil, err
	}
	return &checked{&req, prompt, stops, want, top}, nil
}

// checkMessages refuses chat messages without a known role or a content,
// naming the field.
func checkMessages(msgs []message) error {
	for i, m := range msgs {
		switch {
		case m.Role == "":
			return badRequest{fmt.Sprintf("messages[%d].role", i), fmt.Sprintf("messages[%d].role is missing", i)}
		case !roles[m.Role]:
			return badRequest{fmt.Sprintf("messages[%d].role", i), fmt.Sprintf("messages[%d].role %q: want system, developer, user, assistant or tool", i, httpserve.Shorten(m.Role, 32))}
		case m.Content == nil:
			return badRequest{fmt.Sprintf("messages[%d].content", i), fmt.Sprintf("messages[%d].content is missing", i)}
		}
	}
	return nil
}

// promptOf reads a completions prompt: a string, a list of one string,
// or token ids (a list of ints, or a list of one such list), checked
// against the vocabulary. Several prompts in one request are refused:
// a request here makes one completion.
func (s *Server) promptOf(raw json.RawMessage) (text string, ids []int, err error) {
	if json.Unmarshal(raw, &text) == nil {
		return text, nil, nil
	}
	var texts []string
	if json.Unmarshal(raw, &texts) == nil && len(texts) == 1 {
		return texts[0], nil, nil
	}
	var lists [][]int
	if json.Unmarshal(raw, &ids) != nil {
		if json.Unmarshal(raw, &lists) != nil || len(lists) != 1 {
			if len(texts) > 1 || len(lists) > 1 {
				return "", nil, badRequest{"prompt", fmt.Sprintf("%d prompts in one request; this server makes one completion a request", max(len(texts), len(lists)))}
			}
			return "", nil, badRequest{"prompt", "prompt must be a string, token ids, or a list of one of them"}
		}
		ids = lists[0]
	}
	if len(ids) == 0 {
		return "", nil, badRequest{"prompt", "prompt has no tokens"}
	}
	if len(ids) >= s.model.Context {
		return "", nil, badRequest{"prompt", fmt.Sprintf("the prompt has %d tokens; the context holds %d", len(ids), s.model.Context)}
	}
	for i, id := range ids {
		if id < 0 || id >= s.tok.Len() {
			return "", nil, badRequest{"prompt", fmt.Sprintf("prompt token %d (at %d) is outside the vocabulary of %d", id, i, s.tok.Len())}
		}
	}
	return "", ids, nil
}

// chatPrompt builds the prompt of checked messages in the model's format.
func (s *Server) chatPrompt(msgs []message) string {
	conv := make([]chatfmt.Message, len(msgs))
	for i, m := range msgs {
		conv[i] = chatfmt.Message{Role: m.Role, Content: string(*m.Content)}
	}
	return s.Chat.Apply(conv)
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
			out.end(ev.Reason)
			return
		}
		now := time.Now()
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

// response writes one generation, streamed or whole.
type response struct {
	w            http.ResponseWriter
	chat, stream bool
	usage        bool
	id, model    string
	created      int64
	prompt, made int
	stops        []string
	tok          *tokenizer.Tokenizer
	// logprobs: each token's entry waits in lps until a chunk carries it
	logprobs bool
	lps      []tokenLogprob
	all      []tokenLogprob // every entry, for a whole response
	offset   int            // bytes of the tokens so far

	reasoning int             // the first tokens that are reasoning (Server.Reasoning)
	reasoned  strings.Builder // their text
	thinking  thinkState      // where the answer is against its think tags (Server.ThinkTags)
	thinkHeld string          // text held back: it may be the start of a tag
	thought   int             // tokens made inside the think tags
	text      strings.Builder // the answer generated (whole responses, stop matching)
	pending   []byte          // bytes of an unfinished UTF-8 character
	held      string          // text held back because it may start a stop string
	sent      int             // tokens already reported in chunks
	ended     bool
	head, buf []byte // textChunk's: every chunk's bytes before its text, and the chunk
}

func (o *response) begin() {
	if !o.stream {
		return
	}
	o.w.Header().Set("Content-Type", "text/event-stream")
	o.w.Header().Set("Cache-Control", "no-cache")
	o.w.WriteHeader(http.StatusOK)
	if o.chat {
		o.chunk(map[string]any{"role": "assistant", "content": ""}, nil)
	}
}

// token adds a generated token; it reports whether a stop string matched.
func (o *response) token(t int, lp *sched.Logprob) bool {
	o.made++
	if o.logprobs && lp != nil {
		e := newTokenLogprob(o.tok, t, o.offset, lp)
		o.lps, o.all = append(o.lps, e), append(o.all, e)
		o.offset += len(e.text)
	}
	o.pending = append(o.pending, o.tok.Piece(t)...)
	// Hold back an incomplete UTF-8 character until its last byte comes.
	cut := len(o.pending)
	for i := max(0, len(o.pending)-3); i < len(o.pending); i++ {
		if o.pending[i]&0xC0 == 0xC0 && !utf8.FullRune(o.pending[i:]) {
			cut = i
			break
		}
	}
	text := string(o.pending[:cut])
	o.pending = append(o.pending[:0], o.pending[cut:]...)
	if o.made <= o.reasoning {
		o.think(text) // stop strings end answers, not reasoning
		return false
	}
	if o.thinking != thinkDone {
		o.thought++ // the token that closes the tags is reasoning too
		if text = o.splitThink(text); text == "" {
			return false
		}
	}
	piece := o.held + text
	o.held = ""
	for _, st := range o.stops {
		whole := o.text.String() + piece
		if i := strings.Index(whole, st); i >= 0 {
			piece = whole[o.text.Len():max(i, o.text.Len())]
			o.emit(piece)
			return true
		}
	}
	// Keep back a tail that could be the start of a stop string.
	for _, st := range o.stops {
		for k := min(len(st)-1, len(piece)); k > 0; k-- {
			if strings.HasSuffix(piece, st[:k]) {
				if len(o.held) < k {
					o.held = piece[len(piece)-k:]
				}
				break
			}
		}
	}
	o.emit(piece[:len(piece)-len(o.held)])
	return false
}

func (o *response) emit(piece string) {
	o.text.WriteString(piece)
	if o.stream && piece != "" {
		if o.chat {
			o.textChunk("content", piece)
		} else {
			o.textChunk("text", piece)
		}
		o.sent = o.made
	}
}

// thinkState is where an answer is against its think tags.
type thinkState uint8

const (
	thinkDone    thinkState = iota // no tags, or past </think>: the answer
	thinkOpening                   // before anything: an opening <think> may come
	thinkInside                    // inside the tags: reasoning
)

const (
	thinkOpen  = "<think>"
	thinkClose = "</think>"
)

// splitThink takes text made inside (or before) the think tags: it sends
// the reasoning on, holds back what may be the start of a tag, and
// returns the answer's text once </think> has passed.
func (o *response) splitThink(text string) string {
	buf := o.thinkHeld + text
	o.thinkHeld = ""
	if o.thinking == thinkOpening {
		lead := strings.TrimLeft(buf, " \t\r\n")
		switch {
		case strings.HasPrefix(lead, thinkOpen):
			buf = lead[len(thinkOpen):] // the model opened the tags itself (Qwen3)
		case strings.HasPrefix(thinkOpen, lead):
			o.thinkHeld = buf // "<thi": wait for the rest
			return ""
		}
		o.thinking = thinkInside
	}
	if i := strings.Index(buf, thinkClose); i >= 0 {
		o.think(buf[:i])
		o.thinking = thinkDone
		return buf[i+len(thinkClose):]
	}
	for k := min(len(thinkClose)-1, len(buf)); k > 0; k-- {
		if strings.HasSuffix(buf, thinkClose[:k]) {
			o.thinkHeld = buf[len(buf)-k:]
			buf = buf[:len(buf)-k]
			break
		}
	}
	o.think(buf)
	return ""
}

// think adds reasoning text.
func (o *response) think(text string) {
	o.reasoned.WriteString(text)
	if o.stream && text != "" {
		o.textChunk("reasoning_content", text)
		o.sent = o.made
	}
}

func (o *response) delta(text string) map[string]any {
	if o.chat {
		return map[string]any{"content": text}
	}
	return map[string]any{"text": text}
}

func (o *response) usageJSON() map[string]any {
	u := map[string]any{"prompt_tokens": o.prompt, "completion_tokens": o.made, "total_tokens": o.prompt + o.made}
	if o.reasoning > 0 {
		u["completion_tokens_details"] = map[string]any{"reasoning_tokens": min(o.made, o.reasoning)}
	} else if o.thought > 0 {
		u["completion_tokens_details"] = map[string]any{"reasoning_tokens": o.thought}
	}
	return u
}

func (o *response) chunk(delta map[string]any, finish any) {
	choice := map[string]any{"index": 0, "finish_reason": finish}
	if o.logprobs {
		// the entries of the tokens whose text this chunk carries (or
		// held back before it)
		choice["logprobs"] = logprobsJSON(o.chat, o.lps)
		o.lps = o.lps[:0]
	}
	obj := "text_completion"
	if o.chat {
		choice["delta"] = delta
		obj = "chat.completion.chunk"
	} else {
		choice["text"] = delta["text"]
		if delta["text"] == nil {
			choice["text"] = ""
		}
	}
	o.event(map[string]any{"id": o.id, "object": obj, "created": o.created, "model": o.model, "choices": []any{choice}})
}

// textChunk writes a chunk whose only news is text in one field: the
// delta's content or reasoning_content, or a completion's text, as all
// but a stream's first and last chunks are. Without logprobs it is built
// from bytes made once for the response: three maps a token for
// encoding/json to sort and encode, then fmt, had the handler take 37 us
// of CPU a token at 32 streams (17 since), CPU a two-core machine takes
// from the step. With logprobs, chunk builds it.
func (o *response) textChunk(field, text string) {
	if o.logprobs || (!o.chat && field != "text") {
		if field == "text" {
			o.chunk(o.delta(text), nil)
		} else {
			o.chunk(map[string]any{field: text}, nil)
		}
		return
	}
	if o.head == nil {
		id, _ := json.Marshal(o.id)
		model, _ := json.Marshal(o.model)
		obj := `"text_completion"`
		if o.chat {
			obj = `"chat.completion.chunk"`
		}
		o.head = fmt.Appendf(nil, `data: {"id":%s,"object":%s,"created":%d,"model":%s,"choices":[{"index":0,`, id, obj, o.created, model)
	}
	quoted, _ := json.Marshal(text) // the same escaping as chunk's
	b := append(o.buf[:0], o.head...)
	if o.chat {
		b = append(b, `"delta":{"`...)
		b = append(b, field...)
		b = append(b, `":`...)
		b = append(b, quoted...)
		b = append(b, `},"finish_reason":null}]}`...)
	} else {
		b = append(b, `"text":`...)
		b = append(b, quoted...)
		b = append(b, `,"finish_reason":null}]}`...)
	}
	b = append(b, "\n\n"...)
	_, _ = o.w.Write(b)
	o.flush()
	o.buf = b
}

// flush sends what the chunks written so far hold on to the client.
func (o *response) flush() {
	if f, ok := o.w.(http.Flusher); ok {
		f.Flush()
	}
}

func (o *response) event(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		// never an event that is not JSON: the stream says what failed
		b, _ = json.Marshal(map[string]any{"error": map[string]any{"message": "encoding an event: " + err.Error(), "type": "server_error", "code": 500}})
	}
	fmt.Fprintf(o.w, "data: %s\n\n", b)
	o.flush()
}

func (o *response) end(reason string) {
	if o.ended {
		return
	}
	o.ended = true
	if o.thinkHeld != "" { // a tag that never finished: reasoning after all
		o.think(o.thinkHeld)
		o.thinkHeld = ""
	}
	if reason != "stop" || o.held != "" {
		// what was held back for a stop string that never came, and any
		// unfinished character, is text after all
		tail := o.held + strings.ToValidUTF8(string(o.pending), "\uFFFD")
		o.held, o.pending = "", nil
		if tail != "" {
			o.emit(tail)
		}
	}
	if reason == "" {
		reason = "length"
	}
	if !o.stream {
		o.whole(reason)
		return
	}
	o.chunk(o.delta(""), reason)
	if o.usage {
		obj := "text_completion" // the OpenAI SDK's completions stream types every chunk so
		if o.chat {
			obj = "chat.completion.chunk"
		}
		o.event(map[string]any{"id": o.id, "object": obj, "created": o.created, "model": o.model, "choices": []any{}, "usage": o.usageJSON()})
	}
	fmt.Fprint(o.w, "data: [DONE]\n\n")
	o.flush()
}

func (o *response) whole(reason string) {
	choice := map[string]any{"index": 0, "finish_reason": reason}
	obj := "text_completion"
	if o.chat {
		msg := map[string]any{"role": "assistant", "content": o.text.String()}
		if o.reasoning > 0 || o.thought > 0 {
			msg["reasoning_content"] = o.reasoned.String()
		}
		choice["message"] = msg
		obj = "chat.completion"
	} else {
		choice["text"] = o.text.String()
	}
	if o.logprobs {
		choice["logprobs"] = logprobsJSON(o.chat, o.all)
	}
	b, err := json.Marshal(map[string]any{"id": o.id, "object": obj, "created": o.created, "model": o.model,
		"choices": []any{choice}, "usage": o.usageJSON()})
	if err != nil {
		// never a 200 whose body is not the answer
		apiError(o.w, http.StatusInternalServerError, "server_error", "", "encoding the answer: "+err.Error())
		return
	}
	o.w.Header().Set("Content-Type", "application/json")
	_, _ = o.w.Write(append(b, '\n'))
}

func (o *response) fail(err error) {
	o.ended = true
	if o.stream {
		o.event(map[string]any{"error": map[string]any{"message": err.Error(), "type": "server_error", "code": 500}})
		return
	}
	apiError(o.w, http.StatusInternalServerError, "server_error", "", err.Error())
}
