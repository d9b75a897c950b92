package monitor

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tpsbench/tpsbench/client"
	"github.com/tpsbench/tpsbench/internal/scripted"
	"github.com/tpsbench/tpsbench/internal/syncbuf"
	"github.com/tpsbench/tpsbench/record"
)

// TestProxyFingerprintsPrompts: prompts sent alike that share their first
// blocks share their first hashes, and nothing of their text is kept
// unless prompts are to be recorded.
func TestProxyFingerprintsPrompts(t *testing.T) {
	up := scripted.New(scripted.Script{Usage: true, Tokens: 2})
	t.Cleanup(up.Close)
	for _, keep := range []bool{false, true} {
		buf := &syncbuf.Buffer{}
		p, err := NewProxy(up.URL, nil, record.NewWriter(buf))
		if err != nil {
			t.Fatal(err)
		}
		p.RecordPrompts = keep
		srv := httptest.NewServer(p)
		shared := strings.Repeat("system prompt words ", 300) // 6,000 bytes: five whole blocks and some
		bodies := []string{
			`{"model":"m","stream":true,"messages":[{"role":"system","content":` + quote(shared) + `},{"role":"user","content":"first question, long enough"}]}`,
			`{"model":"m","stream":true,"messages":[{"role":"system","content":` + quote(shared) + `},{"role":"user","content":"another"}]}`,
			`{"model":"m","stream":true,"messages":[{"role":"user","content":` + quote("different "+shared) + `}]}`,
			`{"model":"m","prompt":"short","max_tokens":2}`,
		}
		for _, b := range bodies {
			path := "/v1/chat/completions"
			if strings.Contains(b, `"prompt"`) {
				path = "/v1/completions"
			}
			post(t, srv.URL+path, b, http.Header{})
		}
		recs := records(t, buf, len(bodies))
		srv.Close()
		byPrompt := map[int]record.Record{}
		for _, r := range recs {
			byPrompt[r.Seq] = r
		}
		a, b, c, d := byPrompt[0].Prefix, byPrompt[1].Prefix, byPrompt[2].Prefix, byPrompt[3].Prefix
		if a == nil || b == nil || c == nil || d == nil {
			t.Fatalf("records without a prefix: %+v", recs)
		}
		if len(a.Blocks) != 5 || !slices.Equal(a.Blocks, b.Blocks) || a.Blocks[0] == c.Blocks[0] || len(d.Blocks) != 0 || d.Bytes != 7 {
			t.Errorf("fingerprints %+v %+v %+v %+v", a, b, c, d)
		}
		line, _ := json.Marshal(byPrompt[0])
		if strings.Contains(string(line), "system prompt words") != keep {
			t.Errorf("record prompts %v, record: %.200s", keep, line)
		}
		if keep && !strings.Contains(string(byPrompt[3].RequestPrompt), "short") {
			t.Errorf("completion prompt not kept: %s", byPrompt[3].RequestPrompt)
		}
	}
}

func quote(s string) string { b, _ := json.Marshal(s); return string(b) }

// TestProxyNativeAPIs: the proxy measures every API the client speaks,
// streamed and whole, as the client does: the same tokens, chunks,
// reasoning, prompt count and finish, and a fingerprint of the prompt.
func TestProxyNativeAPIs(t *testing.T) {
	up := scripted.New(scripted.Script{TTFT: 5 * time.Millisecond, Gap: 2 * time.Millisecond, PerEvent: 2, Usage: true, PromptTokens: 4, Reasoning: 3})
	t.Cleanup(up.Close)
	for _, api := range []string{client.APIChat, client.APIResponses, client.APILlamaCpp, client.APITGI, client.APISGLang, client.APIAnthropic} {
		for _, stream := range []bool{true, false} {
			proxy, buf, _ := proxyTo(t, up.URL)
			cl, err := client.NewHTTP(client.HTTPConfig{URL: proxy.URL, API: api, Stream: stream, Concurrency: 1})
			if err != nil {
				t.Fatal(err)
			}
			var mine record.Record
			cl.Do(context.Background(), &client.Request{Model: "m", Prompt: "a prompt", MaxTokens: 9}, &mine)
			cl.Close()
			recs := records(t, buf, 1)
			if len(recs) != 1 {
				t.Fatalf("%s stream %v: %d records", api, stream, len(recs))
			}
			theirs := recs[0]
			if mine.Error != nil || theirs.Error != nil || theirs.API != api || theirs.Stream != stream || theirs.MaxTokens != 9 ||
				theirs.OutputTokens != mine.OutputTokens || len(theirs.Chunks) != len(mine.Chunks) || theirs.ReasoningTokens != mine.ReasoningTokens ||
				theirs.PromptTokens != mine.PromptTokens || theirs.FinishReason != mine.FinishReason || theirs.Prefix == nil || theirs.Prefix.Bytes == 0 {
				t.Errorf("%s stream %v:\nclient %+v\nproxy  %+v", api, stream, mine, theirs)
			}
		}
	}
}
