package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Detect recognises a server by the probes of protocols, in their order:
// a route that server answers, and a field of its JSON answer. A server
// that lists models at /v1/models (vLLM, SGLang, TGI, llama.cpp, Ollama,
// the engine) is spoken to in OpenAI's chat, its chat template and OpenAI
// path being what users of those servers measure; only a server without
// it is asked for its own API (Ollama's /api/chat, llama.cpp's
// /completion, SGLang's and TGI's /generate).

// DetectAPI finds which API the server at rawURL (its root) speaks.
func DetectAPI(ctx context.Context, rawURL, apiKey string, headers http.Header) (string, error) {
	api, _, err := Detect(ctx, rawURL, apiKey, headers)
	return api, err
}

// Detect finds which API the server at rawURL (its root) speaks, and says
// why that one.
func Detect(ctx context.Context, rawURL, apiKey string, headers http.Header) (api, why string, err error) {
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", "", fmt.Errorf("server URL: %w", ErrURL)
	}
	if api := apiOfPath(strings.TrimRight(u.Path, "/")); api != "" {
		return api, "the URL names its endpoint", nil
	}
	root := strings.TrimSuffix(strings.TrimRight(u.String(), "/"), "/v1")
	var tried []string
	for _, api := range protocols {
		p := api.probe
		if p == nil {
			continue
		}
		ok, err := answers(ctx, api, root+p.path, p.field, apiKey, headers)
		if ok {
			return api.name, p.why, nil
		}
		var op *net.OpError
		if errors.As(err, &op) && op.Op == "dial" || ctx.Err() != nil {
			// no server there, or no time left: the other probes would
			// only wait as long again
			return "", "", fmt.Errorf("--api auto: asking the server at %s for %s: %s", Redact(root), p.path, describe(err))
		}
		tried = append(tried, fmt.Sprintf("%s (%s)", p.path, describe(err)))
	}
	return "", "", fmt.Errorf("--api auto: the server at %s answers none of %s", Redact(root), strings.Join(tried, ", "))
}

// probeTimeout bounds each probe; a deadline of ctx's (the run's
// --timeout) bounds them all.
const probeTimeout = 10 * time.Second

// answers reports whether GET u, asked as api asks, answers 200 with a
// JSON object holding field.
func answers(ctx context.Context, api *protocol, u, field, apiKey string, headers http.Header) (bool, error) {
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	resp, err := get(ctx, api, u, apiKey, headers)
	if err != nil {
		return false, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return false, fmt.Errorf("HTTP %d", resp.StatusCode)
	}
	var obj map[string]json.RawMessage
	if err := json.NewDecoder(io.LimitReader(resp.Body, 4<<20)).Decode(&obj); err != nil {
		return false, fmt.Errorf("not a JSON object")
	}
	if _, ok := obj[field]; !ok {
		return false, fmt.Errorf("no %q", field)
	}
	return true, nil
}
