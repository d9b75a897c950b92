package monitor

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/tpsbench/tpsbench/internal/scripted"
	"github.com/tpsbench/tpsbench/internal/syncbuf"
	"github.com/tpsbench/tpsbench/record"
)

// TestProxyFingerprintsPrompts: prompts that share their first blocks
// share their first hashes, and nothing of their text is kept unless
// prompts are to be recorded.
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
			`{"model":"m","stream":true,"messages":[{"role":"system","content":[{"type":"text","text":` + quote(shared) + `}]},{"role":"user","content":"another"}]}`,
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
		if len(a.Blocks) != 5 || !slices.Equal(a.Blocks, b.Blocks) || a.Blocks[0] == c.Blocks[0] || len(d.Blocks) != 0 || d.Bytes != 5 {
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
