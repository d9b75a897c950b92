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
// endpoint (vLLM, SGLang and the tpsbench engine have one).
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
	if t.api == APIChat || t.api == APIResponses {
		body["messages"] = []Message{{Role: "user", Content: text}}
	} else {
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
	var out struct {
		Count  *int  `json:"count"`
		Tokens []int `json:"tokens"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 64<<20)).Decode(&out); err != nil {
		return 0, fmt.Errorf("tokenize: %w", err)
	}
	if out.Count != nil {
		return *out.Count, nil
	}
	return len(out.Tokens), nil
}
