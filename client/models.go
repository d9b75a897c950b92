package client

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// ListModels asks an OpenAI-compatible server for its models
// (GET /v1/models), so that a run can default to the one it serves.
func ListModels(ctx context.Context, rawURL, api, apiKey string, headers http.Header) ([]string, error) {
	endpoint, api, err := Endpoint(rawURL, api)
	if err != nil {
		return nil, err
	}
	var base, list string
	if api == APIOllama {
		base = strings.TrimSuffix(endpoint, "/chat")
		list = base + "/tags" // Ollama: GET /api/tags
	} else {
		base = endpoint[:strings.LastIndex(endpoint, "/v1/")+len("/v1")]
		list = base + "/models"
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, list, nil)
	if err != nil {
		return nil, fmt.Errorf("listing models: %s", describe(err))
	}
	for k, vs := range headers {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	if apiKey != "" {
		req.Header.Set("Authorization", "Bearer "+apiKey)
	}
	resp, err := http.DefaultClient.Do(req)
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
	return ids, nil
}
