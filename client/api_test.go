package client

import (
	"bytes"
	"encoding/json"
	"io"
	"mime"
	"mime/multipart"
	"strings"
	"testing"

	"github.com/tpsbench/tpsbench/workload"
)

// TestEveryAPIComplete: each API says everything the client and the proxy
// read of it, and what the client sends is what the proxy reads back: its
// API, stream flag, budget and prompt (an API whose budget field the proxy
// looks for under another name fails here). An API that generates nothing
// has no budget, and the proxy reads its inputs; a transcription's form
// gives the proxy its stream flag, budget and audio's length.
func TestEveryAPIComplete(t *testing.T) {
	seen := map[string]bool{}
	for _, p := range protocols {
		if p.name == "" || p.help == "" || p.path == "" || p.body == nil || p.scanner == nil || (len(p.budget) == 0) != p.outputless || p.outputless != (p.inputs != nil && p.answers != "") || p.prompt == "" || len(p.endpoints) == 0 {
			t.Errorf("%q: incomplete: %+v", p.name, *p)
		}
		if seen[p.name] {
			t.Errorf("%q named twice", p.name)
		}
		seen[p.name] = true
		endpoint, api, err := Endpoint("http://127.0.0.1:8000/v1", p.name)
		if err != nil || api != p.name || !strings.HasSuffix(endpoint, p.path) {
			t.Errorf("%s: endpoint %q api %q err %v", p.name, endpoint, api, err)
		}
		for _, stream := range []bool{false, true} {
			c, err := NewHTTP(HTTPConfig{URL: "http://127.0.0.1:8000", API: p.name, Stream: stream})
			if err != nil {
				t.Fatal(err)
			}
			req := &Request{Model: "m", Prompt: "say hi", MaxTokens: 7}
			wav := workload.EncodeWAV(make([]int16, 4000), 16000) // a quarter second
			if p.transcribes {
				req.Media = []Media{{MIME: "audio/wav", Data: wav}}
			}
			body, ctype, err := c.body(req)
			if err != nil {
				t.Fatal(err)
			}
			got, ok := ReadProxied(strings.TrimPrefix(c.endpoint, "http://127.0.0.1:8000"), body)
			if p.transcribes { // a form, which the proxy reads too
				form := readForm(t, ctype, body)
				if !ok || got.Stream != stream || got.Model != "m" || got.MaxTokens != 7 || got.AudioSeconds != 0.25 || form["file"] != string(wav) || form["model"] != "m" || form["prompt"] != "" || form["max_completion_tokens"] != "7" || (form["stream"] == "true") != stream {
					t.Errorf("%s: sent the form %v, proxy read %+v (ok %v)", p.name, form, got, ok)
				}
				continue
			}
			if ctype != "application/json" {
				t.Errorf("%s: Content-Type %q", p.name, ctype)
			}
			if p.outputless { // the proxy measures it with its inputs, no budget
				if !ok || got.API != p.name || got.Stream || got.Inputs != 1 || got.MaxTokens != 0 || !strings.Contains(string(got.Prompt), "say hi") {
					t.Errorf("%s: sent %s, proxy read %+v (ok %v)", p.name, body, got, ok)
				}
				continue
			}
			if !ok || got.API != p.name || got.Stream != stream || got.MaxTokens != 7 || !strings.Contains(string(got.Prompt), "say hi") {
				t.Errorf("%s stream %v: sent %s to %s, proxy read %+v (ok %v)", p.name, stream, body, c.endpoint, got, ok)
			}
			if !json.Valid(body) {
				t.Errorf("%s: body %s", p.name, body)
			}
		}
	}
	if len(APIs) != len(protocols) || !strings.Contains(ErrAPI.Error(), "sglang") {
		t.Errorf("APIs %v, ErrAPI %q", APIs, ErrAPI)
	}
}

// readForm is a multipart form's fields and files, each by its name.
func readForm(t *testing.T, ctype string, body []byte) map[string]string {
	t.Helper()
	_, params, err := mime.ParseMediaType(ctype)
	if err != nil {
		t.Fatalf("Content-Type %q: %v", ctype, err)
	}
	form, err := multipart.NewReader(bytes.NewReader(body), params["boundary"]).ReadForm(1 << 20)
	if err != nil {
		t.Fatalf("reading the form: %v", err)
	}
	out := map[string]string{}
	for k, v := range form.Value {
		out[k] = v[0]
	}
	for k, fs := range form.File {
		f, err := fs[0].Open()
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(f)
		out[k] = string(data)
	}
	return out
}
