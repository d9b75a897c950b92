// Package scripted is an OpenAI-compatible test server whose token timing is
// known exactly: it emits tokens on a schedule and logs when it actually
// wrote each event. It is the ground truth the metric tests measure against.
// It also speaks the Responses API, llama.cpp's /completion, TGI's
// /generate_stream and /generate, SGLang's /generate and Anthropic's
// /v1/messages (native.go).
package scripted

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"
)

// Script says how the server answers one request.
type Script struct {
	TTFT      time.Duration // from reading the request to the first token event
	Gap       time.Duration // between token events
	Tokens    int           // output tokens; 0 means the request's max_tokens
	PerEvent  int           // tokens carried by each event (the last may carry fewer); 0 means 1
	RoleChunk bool          // send a role-only chunk first (it must not count as a token)
	Usage     bool          // send a final usage chunk (stream_options.include_usage)
	// ContinuousUsage puts cumulative usage on every token event, as
	// vLLM's continuous_usage_stats does.
	ContinuousUsage bool
	Word            string // the text of each token; "tok" when empty
	// Reasoning makes the first Reasoning tokens of a chat answer
	// reasoning_content, counted in usage's reasoning_tokens.
	Reasoning    int
	PromptTokens int // reported in usage
	Status       int // answer with this HTTP status and an error body instead
}

// Sent is what the server did for one request, by its own clock. Event
// times are taken just before each write, so a client can never see an
// event before its logged time.
type Sent struct {
	ID       string
	Received time.Time   // when the request body had been read
	Events   []time.Time // when each token event was written and flushed
	Tokens   []int       // tokens in each event
	Reasons  []bool      // whether each event was reasoning
	Stream   bool
	Request  json.RawMessage // the request's body, as received
	Images   []ImageSeen     // the images it carried, decoded
	Audios   []AudioSeen     // the audio it carried or transcribed, decoded
	Videos   []VideoSeen     // the videos it carried, decoded
}

// Handler serves the scripted API; it keeps a log of what it sent.
type Handler struct {
	mux    *http.ServeMux
	script func(seq int) Script
	noLog  bool

	mu   sync.Mutex
	seq  int
	sent map[string]*Sent
}

// NewHandler returns a handler answering the seq-th request (from 0) with
// script(seq). With keepLog false it logs nothing (for long benchmarks).
func NewHandler(script func(seq int) Script, keepLog bool) *Handler {
	h := &Handler{script: script, sent: map[string]*Sent{}, noLog: !keepLog, mux: http.NewServeMux()}
	h.mux.HandleFunc("/v1/chat/completions", func(w http.ResponseWriter, r *http.Request) { h.serve(w, r, true) })
	h.mux.HandleFunc("/v1/completions", func(w http.ResponseWriter, r *http.Request) { h.serve(w, r, false) })
	h.mux.HandleFunc("/v1/embeddings", h.serveEmbeddings)
	h.mux.HandleFunc("/v1/rerank", h.serveRerank)
	h.mux.HandleFunc("/v1/audio/transcriptions", h.serveTranscription)
	h.mux.HandleFunc("/v1/responses", func(w http.ResponseWriter, r *http.Request) { h.serveNative(w, r, "responses") })
	h.mux.HandleFunc("/v1/messages", func(w http.ResponseWriter, r *http.Request) { h.serveNative(w, r, "anthropic") })
	h.mux.HandleFunc("/completion", func(w http.ResponseWriter, r *http.Request) { h.serveNative(w, r, "llamacpp") })
	h.mux.HandleFunc("/generate_stream", func(w http.ResponseWriter, r *http.Request) { h.serveNative(w, r, "tgi") })
	h.mux.HandleFunc("/generate", func(w http.ResponseWriter, r *http.Request) { h.serveNative(w, r, "generate") })
	h.mux.HandleFunc("/info", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"model_id":"scripted","version":"tgi-scripted"}`)
	})
	h.mux.HandleFunc("/debug/sent", h.serveLog)
	h.mux.HandleFunc("/v1/models", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"object":"list","data":[{"id":"scripted","object":"model"}]}`)
	})
	return h
}

// ServeHTTP implements http.Handler.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) { h.mux.ServeHTTP(w, r) }

// Server is a scripted handler running on a loopback port.
type Server struct {
	*httptest.Server
	*Handler
}

// New starts a server that answers every request with s.
func New(s Script) *Server { return NewFunc(func(int) Script { return s }) }

// NewFunc starts a server that answers the seq-th request (from 0) with script(seq).
func NewFunc(script func(seq int) Script) *Server {
	h := NewHandler(script, true)
	return &Server{Server: httptest.NewServer(h), Handler: h}
}

// Log returns what the server sent for the response with this id.
func (s *Handler) Log(id string) (Sent, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sent, ok := s.sent[id]
	if !ok {
		return Sent{}, false
	}
	return *sent, true
}

// All returns what the server sent for every response it logged.
func (s *Handler) All() []Sent {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Sent, 0, len(s.sent))
	for _, sent := range s.sent {
		out = append(out, *sent)
	}
	return out
}

// Requests returns how many requests the server has received.
func (s *Handler) Requests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.seq
}

type requestBody struct {
	Model     string `json:"model"`
	MaxTokens int    `json:"max_tokens"`
	Stream    bool   `json:"stream"`
}

// next numbers a request and gives its script; a script that fails the
// request answers it here (ok false).
func (s *Handler) next(w http.ResponseWriter) (seq int, sc Script, ok bool) {
	s.mu.Lock()
	seq = s.seq
	s.seq++
	s.mu.Unlock()
	sc = s.script(seq)
	if sc.Status != 0 {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(sc.Status)
		fmt.Fprintf(w, `{"error":{"message":"scripted status %d","type":"test"}}`, sc.Status)
		return seq, sc, false
	}
	return seq, sc, true
}

func (s *Handler) serve(w http.ResponseWriter, r *http.Request, chat bool) {
	var body requestBody
	raw, err := io.ReadAll(io.LimitReader(r.Body, 16<<20))
	if err == nil {
		err = json.Unmarshal(raw, &body)
	}
	if err != nil {
		http.Error(w, `{"error":{"message":"bad json"}}`, http.StatusBadRequest)
		return
	}
	received := time.Now()
	seq, sc, ok := s.next(w)
	if !ok {
		return
	}
	if !chat {
		sc.Reasoning = 0 // completions have no reasoning to report
	}
	id := fmt.Sprintf("cmpl-%d", seq)
	n := sc.Tokens
	if n == 0 {
		n = body.MaxTokens
	}
	per := max(sc.PerEvent, 1)
	word := sc.Word
	if word == "" {
		word = "tok"
	}
	log := &Sent{ID: id, Received: received, Stream: body.Stream, Request: raw}
	if chat {
		sc.PromptTokens += log.readMedia(raw) // charged as a multimodal model charges them
	}
	if !s.noLog {
		s.mu.Lock()
		s.sent[id] = log
		s.mu.Unlock()
	}

	if !body.Stream {
		sleepUntil(received.Add(sc.TTFT + time.Duration(max(n-1, 0))*sc.Gap))
		text := strings.Repeat(word, n)
		s.logEvent(log, n, false)
		w.Header().Set("Content-Type", "application/json")
		var choice string
		if chat {
			r := min(sc.Reasoning, n)
			choice = fmt.Sprintf(`{"index":0,"message":{"role":"assistant","reasoning_content":%q,"content":%q},"finish_reason":"length"}`,
				strings.Repeat(word, r), strings.Repeat(word, n-r))
		} else {
			choice = fmt.Sprintf(`{"index":0,"text":%q,"finish_reason":"length"}`, text)
		}
		fmt.Fprintf(w, `{"id":%q,"object":"x","model":%q,"choices":[%s]%s}`, id, body.Model, choice, usageJSON(sc, n))
		return
	}

	s.stream(w, r, sc, chat, id, body.Model, word, n, per, log)
}

// stream answers with n tokens as chat (or completions) chunks paced by
// sc, usage when sc asks, and [DONE].
func (s *Handler) stream(w http.ResponseWriter, r *http.Request, sc Script, chat bool, id, model, word string, n, per int, log *Sent) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	fl := w.(http.Flusher)
	if sc.RoleChunk && chat {
		fmt.Fprintf(w, "data: {\"id\":%q,\"object\":\"chunk\",\"model\":%q,\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"},\"finish_reason\":null}]}\n\n", id, model)
		fl.Flush()
	}
	if sc.TTFT == 0 && sc.Gap == 0 && !sc.ContinuousUsage && sc.Reasoning == 0 && chat {
		s.flood(w, id, model, word, n, per, log)
	} else {
		s.paced(w, fl, r, sc, chat, id, model, word, n, per, log)
	}
	if sc.Usage {
		fmt.Fprintf(w, "data: {\"id\":%q,\"object\":\"chunk\",\"model\":%q,\"choices\":[]%s}\n\n", id, model, usageJSON(sc, n))
	}
	fmt.Fprint(w, "data: [DONE]\n\n")
	fl.Flush()
}

// flood writes every event at once from one pre-rendered buffer, so that the
// server outpaces any client (for throughput benchmarks).
func (s *Handler) flood(w http.ResponseWriter, id, model, word string, n, per int, log *Sent) {
	events := (n + per - 1) / per
	one := fmt.Sprintf("data: {\"id\":%q,\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":%q,\"choices\":[{\"index\":0,\"delta\":{\"content\":%q},\"logprobs\":null,\"finish_reason\":null}]}\n\n",
		id, model, strings.Repeat(word, per))
	batch := []byte(strings.Repeat(one, 64))
	for events >= 64 {
		w.Write(batch)
		events -= 64
	}
	w.Write(batch[:len(one)*events])
	s.logEvent(log, n, false)
}

func (s *Handler) paced(w http.ResponseWriter, fl http.Flusher, r *http.Request, sc Script, chat bool, id, model, word string, n, per int, log *Sent) {
	received := log.Received
	event := func(choice, usage string) {
		fmt.Fprintf(w, "data: {\"id\":%q,\"object\":\"chunk\",\"model\":%q,\"choices\":[%s]%s}\n\n", id, model, choice, usage)
	}
	done := 0
	for ev := 0; done < n; ev++ {
		k := min(per, n-done)
		// an event is reasoning while the reasoning lasts: one that would
		// hold its end stops there, as servers send them
		reasoning := chat && done < sc.Reasoning
		if reasoning {
			k = min(k, sc.Reasoning-done)
		}
		text := strings.Repeat(word, k)
		finish := "null"
		if done+k == n {
			finish = `"length"`
		}
		var choice string
		if reasoning {
			choice = fmt.Sprintf(`{"index":0,"delta":{"reasoning_content":%q},"finish_reason":%s}`, text, finish)
		} else if chat {
			choice = fmt.Sprintf(`{"index":0,"delta":{"content":%q},"finish_reason":%s}`, text, finish)
		} else {
			choice = fmt.Sprintf(`{"index":0,"text":%q,"finish_reason":%s}`, text, finish)
		}
		usage := ""
		if sc.ContinuousUsage {
			usage = usageJSON(sc, done+k)
		}
		sleepUntil(received.Add(sc.TTFT + time.Duration(ev)*sc.Gap))
		if r.Context().Err() != nil {
			return
		}
		s.logEvent(log, k, reasoning) // before the write: the client may read it before Flush returns
		event(choice, usage)
		fl.Flush()
		done += k
	}
}

// usageJSON is the usage of a response done tokens into its output.
func usageJSON(sc Script, done int) string {
	details := ""
	if sc.Reasoning > 0 {
		details = fmt.Sprintf(`,"completion_tokens_details":{"reasoning_tokens":%d}`, min(sc.Reasoning, done))
	}
	return fmt.Sprintf(`,"usage":{"prompt_tokens":%d,"completion_tokens":%d,"total_tokens":%d%s}`, sc.PromptTokens, done, sc.PromptTokens+done, details)
}

// serveLog answers with every logged request as JSON lines, times in Unix ns.
func (s *Handler) serveLog(w http.ResponseWriter, _ *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	w.Header().Set("Content-Type", "application/x-ndjson")
	enc := json.NewEncoder(w)
	for _, sent := range s.sent {
		line := struct {
			ID       string  `json:"id"`
			Received int64   `json:"received"`
			Events   []int64 `json:"events"`
			Tokens   []int   `json:"tokens"`
		}{ID: sent.ID, Received: sent.Received.UnixNano(), Tokens: sent.Tokens}
		for _, t := range sent.Events {
			line.Events = append(line.Events, t.UnixNano())
		}
		if err := enc.Encode(line); err != nil {
			return
		}
	}
}

func (s *Handler) logEvent(log *Sent, tokens int, reasoning bool) {
	if s.noLog {
		return
	}
	now := time.Now()
	s.mu.Lock()
	log.Events = append(log.Events, now)
	log.Tokens = append(log.Tokens, tokens)
	log.Reasons = append(log.Reasons, reasoning)
	s.mu.Unlock()
}

func sleepUntil(t time.Time) {
	if d := time.Until(t); d > 0 {
		time.Sleep(d)
	}
}
