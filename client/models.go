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
	lists := protocolOf(api).modelLists
	if len(lists) == 0 {
		lists = []string{"/v1/models"}
	}
	var firstErr error
	for _, list := range lists {
		ids, err := listModels(ctx, protocolOf(api), root+list, apiKey, headers)
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
	p := protocolOf(api)
	if p.wholePath != "" && strings.HasSuffix(endpoint, p.wholePath) {
		return strings.TrimSuffix(endpoint, p.wholePath)
	}
	return strings.TrimSuffix(endpoint, p.path)
}

// get sends GET u with the run's headers and API key, as api sends them
// (nil: a bearer token).
func get(ctx context.Context, api *protocol, u, apiKey string, headers http.Header) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	for k, vs := range headers {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	api.setAuth(req.Header, apiKey)
	return http.DefaultClient.Do(req)
}

func listModels(ctx context.Context, api *protocol, list, apiKey string, headers http.Header) ([]string, error) {
	models, err := modelsAt(ctx, api, list, apiKey, headers)
	var ids []string
	for _, m := range models {
		ids = append(ids, m.id)
	}
	return ids, err
}

// ModelContext is the context, in tokens, the server says model has (its
// /v1/models entry's max_model_len: vLLM, SGLang, the engine), or 0 when
// it says none.
func ModelContext(ctx context.Context, rawURL, api, model, apiKey string, headers http.Header) (int, error) {
	endpoint, api, err := Endpoint(rawURL, api)
	if err != nil {
		return 0, err
	}
	models, err := modelsAt(ctx, protocolOf(api), serverRoot(endpoint, api)+"/v1/models", apiKey, headers)
	if err != nil {
		return 0, err
	}
	for _, m := range models {
		if m.id == model || len(models) == 1 {
			return m.context, nil
		}
	}
	return 0, nil
}

// modelEntry is a model a server lists, with its context when it says.
type modelEntry struct {
	id      string
	context int
}

func modelsAt(ctx context.Context, api *protocol, list, apiKey string, headers http.Header) ([]modelEntry, error) {
	resp, err := get(ctx, api, list, apiKey, headers)
	if err != nil {
		return nil, fmt.Errorf("listing models at %s: %s", Redact(list), describe(err))
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("listing models at %s: HTTP %d%s", Redact(list), resp.StatusCode, errorBody(resp.Body))
	}
	var body struct {
		Data []struct {
			ID          string `json:"id"`
			MaxModelLen int    `json:"max_model_len"`
		} `json:"data"`
		Models []struct {
			Name string `json:"name"`
		} `json:"models"`
		ModelID string `json:"model_id"` // TGI's /info
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 16<<20)).Decode(&body); err != nil {
		return nil, fmt.Errorf("listing models at %s: %w", Redact(list), err)
	}
	var models []modelEntry
	for _, m := range body.Data {
		models = append(models, modelEntry{m.ID, max(m.MaxModelLen, 0)})
	}
	for _, m := range body.Models {
		models = append(models, modelEntry{id: m.Name})
	}
	if body.ModelID != "" {
		models = append(models, modelEntry{id: body.ModelID})
	}
	return models, nil
}
