package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/tpsbench/tpsbench/internal/scripted"
	"github.com/tpsbench/tpsbench/record"
)

// TestEmbeddings: a batch of three inputs to the scripted server's
// /v1/embeddings completes with a vector each, no token, the prompt tokens
// it charged (a token a word: 2 + 3 + 1), and a latency no shorter than
// the time the server's log says it held the answer; base64 vectors count
// as well.
func TestEmbeddings(t *testing.T) {
	srv := scripted.New(scripted.Script{TTFT: 20 * time.Millisecond})
	defer srv.Close()
	for _, format := range []string{"float", "base64"} {
		c := newClient(t, srv.URL, func(cfg *HTTPConfig) {
			cfg.API = APIEmbeddings
			cfg.Extra = map[string]any{"encoding_format": format}
		})
		var rec record.Record
		c.Do(context.Background(), &Request{Model: "m", Inputs: []string{"two words", "three more words", "one"}}, &rec)
		if rec.Error != nil || rec.Inputs != 3 || rec.OutputTokens != 0 || len(rec.Chunks) != 0 || rec.PromptTokens != 6 || rec.Stream {
			t.Fatalf("%s: record %+v (error %+v)", format, rec, rec.Error)
		}
		sent, ok := srv.Log(rec.ResponseID)
		if !ok || len(sent.Events) != 1 || sent.Tokens[0] != 3 {
			t.Fatalf("%s: server log %+v", format, sent)
		}
		var body struct {
			Input          []string `json:"input"`
			EncodingFormat string   `json:"encoding_format"`
		}
		json.Unmarshal(sent.Request, &body)
		if len(body.Input) != 3 || body.EncodingFormat != format {
			t.Errorf("%s: the server received %s", format, sent.Request)
		}
		if held := sent.Events[0].Sub(sent.Received); time.Duration(rec.E2E()) < held {
			t.Errorf("%s: E2E %v, shorter than the %v the server held the answer", format, time.Duration(rec.E2E()), held)
		}
	}
}

// TestEmbeddingsShortAnswer: an answer with fewer vectors than inputs is
// malformed; an error object is the server's error.
func TestEmbeddingsShortAnswer(t *testing.T) {
	for _, c := range []struct{ body, kind, says string }{
		{`{"data":[{"embedding":[0.1]}],"usage":{"prompt_tokens":2}}`, record.KindMalformed, "asked for 2 vectors, the answer held 1"},
		{`{"error":{"message":"too long"}}`, record.KindServerError, "too long"},
		{`{"data":[{"embedding":[0.1]},{"embedding":[0.2]}]`, record.KindMalformed, ""},
	} {
		url := rawServer(t, http.StatusOK, "application/json", c.body)
		cl := newClient(t, url, func(cfg *HTTPConfig) { cfg.API = APIEmbeddings })
		var rec record.Record
		cl.Do(context.Background(), &Request{Model: "m", Inputs: []string{"a", "b"}}, &rec)
		if rec.Error == nil || rec.Error.Kind != c.kind || !strings.Contains(rec.Error.Message, c.says) {
			t.Errorf("%s: error %+v, want %s %q", c.body, rec.Error, c.kind, c.says)
		}
	}
}

// TestEmbeddingsLargeBatch: a whole answer larger than a stream's event
// may be (8 MiB) is read: 128 vectors of 4,096 dimensions, written as
// JSON floats, are 11 MiB, and complete with a vector each.
func TestEmbeddingsLargeBatch(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"data":[`)
	vector := strings.TrimSuffix(strings.Repeat("-0.0123456789012345,", 4096), ",")
	for i := range 128 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"index":%d,"embedding":[%s]}`, i, vector)
	}
	b.WriteString(`],"usage":{"prompt_tokens":128}}`)
	if b.Len() <= maxEvent {
		t.Fatalf("a body of %d bytes is no larger than an event", b.Len())
	}
	url := rawServer(t, http.StatusOK, "application/json", b.String())
	cl := newClient(t, url, func(cfg *HTTPConfig) { cfg.API = APIEmbeddings })
	inputs := make([]string, 128)
	for i := range inputs {
		inputs[i] = "x"
	}
	var rec record.Record
	cl.Do(context.Background(), &Request{Model: "m", Inputs: inputs}, &rec)
	if rec.Error != nil || rec.Inputs != 128 || rec.PromptTokens != 128 {
		t.Errorf("a body of %.1f MiB: record inputs %d, prompt tokens %d, error %+v", float64(b.Len())/(1<<20), rec.Inputs, rec.PromptTokens, rec.Error)
	}
}

// FuzzScanOutputless: any answer to an embeddings or rerank request is
// read or refused, never a panic; what encoding/json takes as an object is
// read (unless its usage holds a number past an int), and no answer counts
// more vectors or scores than it has bytes.
func FuzzScanOutputless(f *testing.F) {
	f.Add(`{"id":"e","data":[{"index":0,"embedding":[0.5,1e-3]},{"embedding":"AAAA"}],"usage":{"prompt_tokens":3}}`)
	f.Add(`{"error":null,"data":[{"embedding":null}]}`)
	f.Add(`{"results":[{"index":0,"relevance_score":0.9,"document":{"text":"a"}}],"usage":{"total_tokens":7}}`)
	f.Add(`{"data":[{"score":-1e-3},{"score":"x"}]}`)
	f.Fuzz(func(t *testing.T, in string) {
		for _, scan := range []scanFunc{scanEmbeddings, scanRerank} {
			var ci chunkInfo
			err := scan([]byte(in), &ci)
			if ci.answers > len(in) {
				t.Fatalf("%d answers in %d bytes", ci.answers, len(in))
			}
			var obj map[string]any
			if json.Unmarshal([]byte(in), &obj) == nil && obj != nil && err != nil && !errors.Is(err, errTooDeep) {
				if _, usage := obj["usage"]; !usage {
					t.Fatalf("valid JSON %q refused: %v", in, err)
				}
			}
		}
	})
}

// TestRerank: a query and three documents to the scripted server's
// /v1/rerank complete with a score each, the tokens it charged (the query's
// 2 words with each document's: 4 + 5 + 3), and a latency no shorter than
// the time its log says it held the answer; vLLM's /score answer shape
// (a data list of scores) reads alike, and fewer scores than documents is
// malformed.
func TestRerank(t *testing.T) {
	srv := scripted.New(scripted.Script{TTFT: 20 * time.Millisecond})
	defer srv.Close()
	c := newClient(t, srv.URL, func(cfg *HTTPConfig) { cfg.API = APIRerank })
	var rec record.Record
	c.Do(context.Background(), &Request{Model: "m", Inputs: []string{"what fox", "a fox", "two big dogs", "one"}}, &rec)
	if rec.Error != nil || rec.Inputs != 3 || rec.PromptTokens != 12 || rec.OutputTokens != 0 {
		t.Fatalf("record %+v (error %+v)", rec, rec.Error)
	}
	sent, ok := srv.Log(rec.ResponseID)
	if !ok || sent.Tokens[0] != 3 {
		t.Fatalf("server log %+v", sent)
	}
	var body struct {
		Query     string
		Documents []string
	}
	json.Unmarshal(sent.Request, &body)
	if body.Query != "what fox" || len(body.Documents) != 3 || body.Documents[2] != "one" {
		t.Errorf("the server received %s", sent.Request)
	}
	if held := sent.Events[0].Sub(sent.Received); rec.E2E() < held {
		t.Errorf("E2E %v, shorter than the %v the server held the answer", rec.E2E(), held)
	}
	for _, c := range []struct{ body, kind string }{
		{`{"data":[{"index":0,"object":"score","score":0.5},{"index":1,"score":0.1}],"usage":{"prompt_tokens":4}}`, ""},
		{`{"results":[{"index":0,"relevance_score":0.9}]}`, record.KindMalformed},
	} {
		url := rawServer(t, http.StatusOK, "application/json", c.body)
		cl := newClient(t, url, func(cfg *HTTPConfig) { cfg.API = APIRerank })
		var rec record.Record
		cl.Do(context.Background(), &Request{Model: "m", Inputs: []string{"q", "a", "b"}}, &rec)
		if (c.kind == "" && rec.Error != nil) || (c.kind != "" && (rec.Error == nil || rec.Error.Kind != c.kind)) {
			t.Errorf("%s: error %+v, want %q", c.body, rec.Error, c.kind)
		}
	}
}
