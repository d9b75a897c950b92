package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/tpsbench/tpsbench/client"
	"github.com/tpsbench/tpsbench/servermetrics"
)

// engineAPI is the API the embedded engine is spoken to in: --api's, or
// with auto, chat (it serves OpenAI's chat and completions).
func engineAPI(api string) string {
	if api == client.APIAuto {
		return client.APIChat
	}
	return api
}

// endpointFlagError names the flag a client.Endpoint error is about.
func endpointFlagError(err error) error {
	if errors.Is(err, client.ErrAPI) {
		return fmt.Errorf("--api: %w", err)
	}
	return fmt.Errorf("--url: %w", err)
}

// target is a server and model to measure, and the API it is spoken to in.
type target struct {
	name, url, model, api string
}

// apiFor is the API to speak to the server at u: --api's, or with --api
// auto, the one the server answers to.
func (f *runFlags) apiFor(ctx context.Context, stderr io.Writer, u, key string, headers http.Header) (string, error) {
	if f.api != client.APIAuto {
		return f.api, nil
	}
	if f.timeout > 0 {
		// the probes, all of them, within a request's time
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, f.timeout)
		defer cancel()
	}
	api, why, err := client.Detect(ctx, u, key, headers)
	if err == nil && !f.quiet {
		fmt.Fprintf(stderr, "--api auto: %s, for %s (--api names another)\n", api, why)
	}
	return api, err
}

// parseTargetSpecs reads --target's NAME=URL#MODEL specs, which stand
// instead of --url and --model, and checks --url against --api.
func parseTargetSpecs(f *runFlags) ([]target, error) {
	var ts []target
	for _, spec := range f.targets {
		name, rest, ok := strings.Cut(spec, "=")
		u, model, ok2 := strings.Cut(rest, "#")
		switch {
		case !ok || name == "":
			return nil, usagef("--target: no NAME= before the URL: want NAME=URL#MODEL")
		case !ok2 || model == "":
			// the URL is shown without its credentials, if it has any
			return nil, usagef("--target %s=%s: no #MODEL after the URL: want NAME=URL#MODEL", name, client.Redact(u))
		case u == "":
			return nil, usagef("--target %s: no URL: want NAME=URL#MODEL", name)
		}
		api := f.api
		if api == client.APIAuto {
			api = "" // the URL alone is checked; the server names its API later
		}
		if _, _, err := client.Endpoint(u, api); err != nil {
			return nil, usagef("--target %s: %v", name, err)
		}
		ts = append(ts, target{name: name, url: u, model: model})
	}
	if len(ts) > 0 && (f.url != "" || len(f.models) > 0) {
		return nil, usagef("give either --target or --url/--model, not both")
	}
	if f.url != "" && f.api != client.APIAuto {
		if _, _, err := client.Endpoint(f.url, f.api); err != nil {
			return nil, usageError{endpointFlagError(err)}
		}
	}
	return ts, nil
}

// parseTargets is the targets of a run that measures servers: each
// --target (specs, as resolve read them), or each --model of --url (the
// server's own when none is given), with the API each is spoken to in.
func (f *runFlags) parseTargets(ctx context.Context, stderr io.Writer, specs []target, key string, headers http.Header) ([]target, error) {
	if len(specs) > 0 {
		ts := make([]target, 0, len(specs))
		for _, t := range specs {
			api, err := f.apiFor(ctx, stderr, t.url, key, headers)
			if err != nil {
				return nil, err
			}
			t.api = api
			ts = append(ts, t)
		}
		return ts, nil
	}
	api, err := f.apiFor(ctx, stderr, f.url, key, headers)
	if err != nil {
		return nil, err
	}
	models := f.models
	if len(models) == 0 {
		ids, err := client.ListModels(ctx, f.url, api, key, headers)
		if err != nil {
			return nil, fmt.Errorf("no --model given, and %w", err)
		}
		if len(ids) == 0 {
			return nil, fmt.Errorf("no --model given, and the server lists no models")
		}
		models = ids[:1]
	}
	var ts []target
	for _, m := range models {
		ts = append(ts, target{name: m, url: f.url, model: m, api: api})
	}
	return ts, nil
}

func parseHeaders(hs []string) (http.Header, error) {
	h := http.Header{}
	for _, kv := range hs {
		k, v, ok := strings.Cut(kv, ":")
		if !ok || strings.TrimSpace(k) == "" {
			return nil, usagef("--header %q: want Name: value", strings.SplitN(kv, ":", 2)[0])
		}
		h.Add(strings.TrimSpace(k), strings.TrimSpace(v))
	}
	return h, nil
}

// serverMetrics is the scraper of --server-metrics, or nil.
func (f *runFlags) serverMetrics(tgts []target, engineURLs []string, key string, headers http.Header) (*servermetrics.Scraper, error) {
	u := f.serverMet
	switch {
	case u == "":
		return nil, nil
	case u == "engine": // resolve has made sure an engine runs
		u = engineURLs[0] + "/metrics"
	}
	return &servermetrics.Scraper{URL: u, Header: metricsHeader(u, tgts, key, headers)}, nil
}

// metricsHeader is what a scrape of the metrics URL u sends: the run's API
// key and headers when u is on a server under test (a key-protected
// /metrics refused every scrape), nothing for another host, which must
// not see the key.
func metricsHeader(u string, tgts []target, key string, headers http.Header) http.Header {
	mu, err := url.Parse(u)
	if err != nil {
		return nil
	}
	for _, t := range tgts {
		if tu, err := url.Parse(t.url); err == nil && tu.Host == mu.Host {
			h := headers.Clone()
			if h == nil {
				h = http.Header{}
			}
			if key != "" {
				h.Set("Authorization", "Bearer "+key)
			}
			return h
		}
	}
	return nil
}

// waitReady waits, when --ready-check-timeout asks, until each server the
// run measures answers.
func (f *runFlags) waitReady(ctx context.Context, cfg *runConfig, key string, stderr io.Writer) error {
	if f.readyTimeout <= 0 {
		return nil
	}
	urls := append([]string{f.url}, f.replicas...)
	if len(cfg.specs) > 0 {
		urls = urls[:0]
		for _, t := range cfg.specs {
			urls = append(urls, t.url)
		}
	}
	for _, u := range urls {
		if !f.quiet {
			fmt.Fprintf(stderr, "waiting up to %s for %s to answer\n", f.readyTimeout, client.Redact(u))
		}
		if err := client.WaitReady(ctx, u, f.api, key, cfg.headers, f.readyTimeout); err != nil {
			return err
		}
	}
	return nil
}
