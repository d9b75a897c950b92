package client

import (
	"bytes"
	"context"
	"encoding/json"
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
	http                 *http.Client
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
	t := &Tokenizer{url: u.String(), model: model, api: api, key: key, http: &http.Client{}}
	if _, err := t.Count(ctx, "hello world"); err != nil {
		return nil, err
	}
	return t, nil
}

// Count returns the number of prompt tokens the server sees for text, sent
// as the run sends it (a chat message or a bare prompt).
func (t *Tokenizer) Count(ctx context.Context, text string) (int, error) {
	body := map[string]any{"model": t.model}
	switch t.api {
	case APIChat, APIResponses:
		body["messages"] = []Message{{Role: "user", Content: text}}
	case APILlamaCpp: // llama.cpp's /tokenize; its /completion adds BOS
		body = map[string]any{"content": text, "add_special": true}
	case APITGI: // TGI's /tokenize answers a list of tokens
		body = map[string]any{"inputs": text}
	default:
		body["prompt"] = text
	}
	b, _ := json.Marshal(body)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, t.url, bytes.NewReader(b))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	if t.key != "" {
		req.Header.Set("Authorization", "Bearer "+t.key)
	}
	resp, err := t.http.Do(req)
	if err != nil {
		return 0, fmt.Errorf("tokenize: %s", describe(err))
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("tokenize: HTTP %d%s", resp.StatusCode, errorBody(resp.Body))
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
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
