package client

import (
	"context"
	"fmt"
	"net/http"
	"time"
)

// readyPoll is how often WaitReady asks.
const readyPoll = 250 * time.Millisecond

// WaitReady waits until the server at rawURL answers, up to timeout: it
// asks for the model list of api (OpenAI's /v1/models for auto) until the
// server answers with anything but a refused connection or a 502, 503 or
// 504 (llama.cpp's server answers 503 while it loads its model; a gateway
// answers 502 before its backend is up). What the answer says is the
// run's business: a 401 or a 404 is a server that is up.
func WaitReady(ctx context.Context, rawURL, api, apiKey string, headers http.Header, timeout time.Duration) error {
	if api == APIAuto {
		api = APIChat
	}
	endpoint, api, err := Endpoint(rawURL, api)
	if err != nil {
		return err
	}
	p := protocolOf(api)
	list := "/v1/models"
	if len(p.modelLists) > 0 {
		list = p.modelLists[0]
	}
	u := serverRoot(endpoint, api) + list
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	last := "no answer"
	for {
		resp, err := get(ctx, p, u, apiKey, headers)
		switch {
		case err == nil && resp.StatusCode != http.StatusBadGateway && resp.StatusCode != http.StatusServiceUnavailable && resp.StatusCode != http.StatusGatewayTimeout:
			resp.Body.Close()
			return nil
		case err == nil:
			last = fmt.Sprintf("HTTP %d%s", resp.StatusCode, errorBody(resp.Body))
			resp.Body.Close()
		case ctx.Err() == nil:
			last = describe(err)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("the server at %s was not ready within %s (last: %s)", Redact(serverRoot(endpoint, api)), timeout, last)
		case <-time.After(readyPoll):
		}
	}
}
