package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
)

// tokenize answers vLLM's /tokenize: the token ids of a prompt (or of chat
// messages laid out as the chat endpoint lays them out), so that a client
// can make prompts of an exact length.
func (s *Server) tokenize(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Prompt     *string   `json:"prompt"`
		Messages   []message `json:"messages"`
		AddSpecial *bool     `json:"add_special_tokens"`
	}
	body, err := readBody(w, r)
	if err == nil {
		err = decode(body, &req)
	}
	if err != nil {
		var br badRequest
		errors.As(err, &br)
		apiError(w, http.StatusBadRequest, "invalid_request_error", br.param, br.msg)
		return
	}
	var text string
	switch {
	case req.Prompt != nil:
		text = *req.Prompt
	case len(req.Messages) > 0:
		if err := checkMessages(req.Messages); err != nil {
			var br badRequest
			errors.As(err, &br)
			apiError(w, http.StatusBadRequest, "invalid_request_error", br.param, br.msg)
			return
		}
		text = s.chatPrompt(req.Messages)
	default:
		apiError(w, http.StatusBadRequest, "invalid_request_error", "prompt", "give a prompt or messages")
		return
	}
	if least := s.tok.MinTokens(len(text)); least > s.model.Context {
		apiError(w, http.StatusBadRequest, "invalid_request_error", "prompt", fmt.Sprintf("the text has at least %d tokens (%d bytes), more than the context of %d", least, len(text), s.model.Context))
		return
	}
	special := req.AddSpecial == nil || *req.AddSpecial
	ids := s.tok.Encode(text, special)
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"tokens": ids, "count": len(ids), "max_model_len": s.model.Context})
}
