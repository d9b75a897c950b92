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
func ListModels(ctx context.Context, rawURL, apiKey string, headers http.Header) ([]string, error) {
	endpoint, _, err := Endpoint(rawURL, APIChat)
	if err != nil {
		return nil, err
	}
	base := endpoint[:strings.LastIndex(endpoint, "/v1/")+len("/v1")]
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/models", nil)
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
		return nil, fmt.Errorf("listing models at %s: %s", Redact(base+"/models"), describe(err))
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("listing models at %s: HTTP %d%s", Redact(base+"/models"), resp.StatusCode, errorBody(resp.Body))
	}
	var body struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 16<<20)).Decode(&body); err != nil {
		return nil, fmt.Errorf("listing models at %s: %w", Redact(base+"/models"), err)
	}
	var ids []string
	for _, m := range body.Data {
		ids = append(ids, m.ID)
	}
	return ids, nil
}
