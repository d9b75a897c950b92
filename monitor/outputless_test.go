package monitor

import (
	"context"
	"testing"
	"time"

	"github.com/tpsbench/tpsbench/client"
	"github.com/tpsbench/tpsbench/internal/scripted"
	"github.com/tpsbench/tpsbench/record"
	"github.com/tpsbench/tpsbench/workload"
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

// TestProxyMeasuresTranscription: a streamed transcription through the
// proxy is recorded as run records it: its audio's length (read from
// the form's WAV), the tokens the server streamed, each chunk stamped no
// earlier than the server's log says it wrote it.
func TestProxyMeasuresTranscription(t *testing.T) {
	up := scripted.New(scripted.Script{TTFT: 5 * time.Millisecond, Gap: 2 * time.Millisecond})
	defer up.Close()
	srv, buf, _ := proxyTo(t, up.URL)
	audio, err := workload.SyntheticAudio(0.5, 1)
	if err != nil {
		t.Fatal(err)
	}
	cl, err := client.NewHTTP(client.HTTPConfig{URL: srv.URL, API: client.APITranscription, Stream: true})
	if err != nil {
		t.Fatal(err)
	}
	var mine record.Record
	cl.Do(context.Background(), &client.Request{Model: "w", MaxTokens: 4, Media: audio[:1]}, &mine)
	if !mine.OK() {
		t.Fatalf("through the proxy: %+v", mine.Error)
	}
	recs := records(t, buf, 1)
	if len(recs) != 1 {
		t.Fatalf("%d records", len(recs))
	}
	r := recs[0]
	sent, ok := up.Log(r.ResponseID)
	if !r.OK() || r.API != client.APITranscription || !r.Stream || r.Audios != 1 || r.AudioSeconds != 0.5 || r.OutputTokens != 4 || len(r.Chunks) != 4 || !ok {
		t.Fatalf("record %+v (error %+v), logged %v", r, r.Error, ok)
	}
	for i, c := range r.Chunks {
		if at := r.Abs(r.Sent + c.At); at < sent.Events[i].UnixNano() {
			t.Errorf("chunk %d stamped %d ns before the server wrote it", i, sent.Events[i].UnixNano()-at)
		}
	}
}
