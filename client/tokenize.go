package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
)

// Tokenizer counts tokens the way a server does, through its /tokenize
// endpoint (vLLM, SGLang, llama.cpp, TGI and the tpsbench engine have
// one, in their own forms).
type Tokenizer struct {
	url, model, api, key string
	// llamacpp: the server's /tokenize takes llama.cpp's form (content,
	// and a chat prompt built by its /apply-template first), whatever
	// the API measured
	llamacpp bool
	http     *http.Client
}

// NewTokenizer returns a counter for the server at rawURL, or an error if
// it has no usable /tokenize endpoint.
func NewTokenizer(ctx context.Context, rawURL, api, model, key string) (*Tokenizer, error) {
	u, err := url.Parse(rawURL)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("tokenizer: bad server URL")
	}
	u.Path = strings.TrimSuffix(strings.TrimRight(u.Path, "/"), "/v1") + "/tokenize"
	u.User, u.RawQuery = nil, ""
	t := &Tokenizer{url: u.String(), model: model, api: api, key: key, http: &http.Client{}, llamacpp: api == APILlamaCpp}
	n, err := t.Count(ctx, "hello world")
	if err != nil {
		return nil, err
	}
	if n == 0 && !t.llamacpp {
		// llama.cpp's server answers an OpenAI-style body with no tokens:
		// it reads only its own form
		t.llamacpp = true
		if n, err = t.Count(ctx, "hello world"); err != nil || n == 0 {
			return nil, fmt.Errorf("tokenize: the server counts no tokens in \"hello world\" (%v)", err)
		}
	}
	return t, nil
}

// Count returns the number of prompt tokens the server sees for text, sent
// as the run sends it (a chat message or a bare prompt).
func (t *Tokenizer) Count(ctx context.Context, text string) (int, error) {
	body := map[string]any{"model": t.model}
	switch {
	case t.llamacpp:
		if protocolOf(t.api).chat {
			// the prompt its chat endpoint builds from the message
			var err error
			if text, err = t.applyTemplate(ctx, text); err != nil {
				return 0, err
			}
		}
		// as its endpoints tokenize a prompt: BOS added, special tokens
		// in the text parsed
		body = map[string]any{"content": text, "add_special": true, "parse_special": true}
	case protocolOf(t.api).tokenizeField != "":
		body = map[string]any{protocolOf(t.api).tokenizeField: text}
	case protocolOf(t.api).chat:
		body["messages"] = []Message{{Role: "user", Content: text}}
	default:
		body["prompt"] = text
	}
	data, err := t.post(ctx, t.url, body)
	if err != nil {
		return 0, fmt.Errorf("tokenize: %w", err)
	}
	if d := bytes.TrimSpace(data); len(d) > 0 && d[0] == '[' {
		var list []json.RawMessage // TGI: one object a token
		if err := json.Unmarshal(d, &list); err != nil {
			return 0, fmt.Errorf("tokenize: %w", err)
		}
		return len(list), nil
	}
	var out struct {
		Count  *int  `json:"count"`
		Tokens []int `json:"tokens"`
	}
	if err := json.Unmarshal(data, &out); err != nil {
		return 0, fmt.Errorf("tokenize: %w", err)
	}
	if out.Count != nil {
		return *out.Count, nil
	}
	return len(out.Tokens), nil
}

// applyTemplate is the prompt llama.cpp's server builds from a user
// message (its /apply-template).
func (t *Tokenizer) applyTemplate(ctx context.Context, text string) (string, error) {
	data, err := t.post(ctx, strings.TrimSuffix(t.url, "/tokenize")+"/apply-template",
		map[string]any{"messages": []Message{{Role: "user", Content: text}}})
	if err != nil {
		return "", fmt.Errorf("apply-template: %w", err)
	}
	var out struct {
		Prompt *string `json:"prompt"`
	}
	if err := json.Unmarshal(data, &out); err != nil || out.Prompt == nil {
		return "", fmt.Errorf("apply-template: no prompt in the answer (%v)", err)
	}
	return *out.Prompt, nil
}

// post sends body as JSON to url and returns the answer's body.
func (t *Tokenizer) post(ctx context.Context, url string, body any) ([]byte, error) {
	b, _ := json.Marshal(body)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	if t.key != "" {
		req.Header.Set("Authorization", "Bearer "+t.key)
	}
	resp, err := t.http.Do(req)
	if err != nil {
		return nil, errors.New(describe(err))
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("HTTP %d%s", resp.StatusCode, errorBody(resp.Body))
	}
	return io.ReadAll(io.LimitReader(resp.Body, 64<<20))
}
