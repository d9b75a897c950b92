package server

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	chatfmt "github.com/tpsbench/tpsbench/engine/chat"
	"github.com/tpsbench/tpsbench/engine/tokenizer"
	"github.com/tpsbench/tpsbench/internal/httpserve"
)

// Limits on requests.
const (
	maxBody  = 4 << 20
	maxStops = 8
)

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
	// an assistant turn that called tools may have no content (OpenAI
	// makes content optional then): agent transcripts replay such turns
	ToolCalls    json.RawMessage `json:"tool_calls"`
	FunctionCall json.RawMessage `json:"function_call"`
}

// calls is the tool or function calls an assistant message made, as its
// JSON, or nil.
func (m *message) calls() json.RawMessage {
	for _, c := range []json.RawMessage{m.ToolCalls, m.FunctionCall} {
		if len(c) > 0 && string(c) != "null" && string(c) != "[]" {
			return c
		}
	}
	return nil
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
	asked := req.MaxTokens != nil
	if !asked {
		n := 16 // OpenAI's default for completions
		if chat {
			n = s.model.Context // as vLLM: what room the prompt leaves
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
		// a budget asked for that does not fit is refused, as vLLM does
		// for both APIs: clipped, a chat answer stopped short as "length"
		// with no word that the budget was never possible
		if asked {
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
		case m.Content == nil && (m.Role != "assistant" || m.calls() == nil):
			return badRequest{fmt.Sprintf("messages[%d].content", i), fmt.Sprintf("messages[%d].content is missing (only an assistant message with tool_calls may have none)", i)}
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
		var text string
		if m.Content != nil {
			text = string(*m.Content)
		}
		if calls := m.calls(); calls != nil {
			// the calls are part of the turn's text, as a model's chat
			// template writes them: the prompt is as long as what was sent
			text = strings.TrimSpace(text + "\n" + string(calls))
		}
		conv[i] = chatfmt.Message{Role: m.Role, Content: text}
	}
	return s.Chat.Apply(conv)
}
