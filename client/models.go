package client

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// ListModels asks a server for its models, so that a run can default to
// the one it serves: GET /v1/models (OpenAI's, which vLLM, SGLang and
// llama.cpp serve too), Ollama's /api/tags, or TGI's /info.
func ListModels(ctx context.Context, rawURL, api, apiKey string, headers http.Header) ([]string, error) {
	endpoint, api, err := Endpoint(rawURL, api)
	if err != nil {
		return nil, err
	}
	root := serverRoot(endpoint, api)
	lists := []string{root + "/v1/models"}
	switch api {
	case APIOllama:
		lists = []string{root + "/api/tags"}
	case APITGI:
		lists = append([]string{root + "/info"}, lists...)
	}
	var firstErr error
	for _, list := range lists {
		ids, err := listModels(ctx, list, apiKey, headers)
		if err == nil && len(ids) > 0 {
			return ids, nil
		}
		if firstErr == nil {
			firstErr = err
		}
	}
	if firstErr == nil {
		return nil, nil
	}
	return nil, firstErr
}

// serverRoot is an endpoint's server root: the URL without the API's path.
func serverRoot(endpoint, api string) string {
	if api == APITGI && !strings.HasSuffix(endpoint, "_stream") {
		return strings.TrimSuffix(endpoint, "/generate")
	}
	return strings.TrimSuffix(endpoint, apiPaths[api])
}

// get sends GET u with the run's headers and API key.
func get(ctx context.Context, u, apiKey string, headers http.Header) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	for k, vs := range headers {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	if apiKey != "" {
		req.Header.Set("Authorization", "Bearer "+apiKey)
	}
	return http.DefaultClient.Do(req)
}

func listModels(ctx context.Context, list, apiKey string, headers http.Header) ([]string, error) {
	resp, err := get(ctx, list, apiKey, headers)
	if err != nil {
		return nil, fmt.Errorf("listing models at %s: %s", Redact(list), describe(err))
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("listing models at %s: HTTP %d%s", Redact(list), resp.StatusCode, errorBody(resp.Body))
	}
	var body struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
		Models []struct {
			Name string `json:"name"`
		} `json:"models"`
		ModelID string `json:"model_id"` // TGI's /info
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 16<<20)).Decode(&body); err != nil {
		return nil, fmt.Errorf("listing models at %s: %w", Redact(list), err)
	}
	var ids []string
	for _, m := range body.Data {
		ids = append(ids, m.ID)
	}
	for _, m := range body.Models {
		ids = append(ids, m.Name)
	}
	if body.ModelID != "" {
		ids = append(ids, body.ModelID)
	}
	return ids, nil
}
