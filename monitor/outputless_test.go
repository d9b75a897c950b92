package monitor

import (
	"testing"
	"time"

	"github.com/tpsbench/tpsbench/internal/scripted"
)

// TestProxyMeasuresOutputless: embeddings and rerank requests through the
// proxy pass unchanged and are recorded as the client records them: their
// inputs, the prompt tokens the server charged, no output, and a latency
// to the answer's end no shorter than the server held it by its log.
func TestProxyMeasuresOutputless(t *testing.T) {
	up := scripted.New(scripted.Script{TTFT: 15 * time.Millisecond})
	defer up.Close()
	srv, buf, _ := proxyTo(t, up.URL)
	for _, c := range []struct{ path, body string }{
		{"/v1/embeddings", `{"model":"e","input":["two words","three more words","one"]}`},
		{"/v1/rerank", `{"model":"r","query":"q","documents":["x y","z"]}`},
	} {
		if resp, b := post(t, srv.URL+c.path, c.body, nil); resp.StatusCode != 200 {
			t.Fatalf("%s: %d %s", c.path, resp.StatusCode, b)
		}
	}
	recs := records(t, buf, 2)
	if len(recs) != 2 {
		t.Fatalf("%d records", len(recs))
	}
	held := map[string]time.Duration{}
	for _, s := range up.All() {
		held[s.ID] = s.Events[0].Sub(s.Received)
	}
	want := map[string]struct{ inputs, prompt int }{"embeddings": {3, 6}, "rerank": {2, 0}}
	for _, r := range recs {
		w := want[r.API]
		if !r.OK() || r.Inputs != w.inputs || r.OutputTokens != 0 || len(r.Chunks) != 0 || (w.prompt > 0 && r.PromptTokens != w.prompt) {
			t.Errorf("%s: record %+v (error %+v)", r.API, r, r.Error)
		}
		if h, ok := held[r.ResponseID]; !ok || time.Duration(r.E2E()) < h {
			t.Errorf("%s: E2E %v, the server held it %v (logged: %v)", r.API, time.Duration(r.E2E()), h, ok)
		}
	}
}
