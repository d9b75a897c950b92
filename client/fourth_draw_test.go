package client

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/tpsbench/tpsbench/record"
)

// TestResponseIDBounded: an answer's id, from its body or from its
// X-Request-Id, is kept whole up to 128 bytes and shortened past them.
func TestResponseIDBounded(t *testing.T) {
	ids := make(chan string, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Request-Id", <-ids)
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, `data: {"content":"a","stop":false}`+"\n\n"+`data: {"content":"","stop":true,"stop_type":"limit","tokens_predicted":1}`+"\n\n")
	}))
	defer srv.Close()
	c := newClient(t, srv.URL, func(cfg *HTTPConfig) { cfg.API = APILlamaCpp })
	for _, n := range []int{128, 129} {
		id := strings.Repeat("r", n)
		ids <- id
		var rec record.Record
		c.Do(context.Background(), &Request{Model: "m", Prompt: "hi", MaxTokens: 1}, &rec)
		whole := rec.ResponseID == id
		if !rec.OK() || whole != (n <= 128) || !strings.HasPrefix(rec.ResponseID, strings.Repeat("r", 128)) {
			t.Errorf("X-Request-Id of %d bytes kept as %d bytes %q (%v)", n, len(rec.ResponseID), rec.ResponseID, rec.Error)
		}
		body := measured(APIChat, true, `data: {"id":"`+id+`","choices":[{"delta":{"content":"a"}}]}`+"\n\ndata: [DONE]\n\n")
		if whole := body.ResponseID == id; whole != (n <= 128) || !strings.HasPrefix(body.ResponseID, strings.Repeat("r", 128)) {
			t.Errorf("a body's id of %d bytes kept as %q", n, body.ResponseID)
		}
	}
}

// zeroThenEOF gives its bytes in one read, then reads of nothing.
type zeroThenEOF struct {
	data  string
	reads int
}

func (z *zeroThenEOF) Read(p []byte) (int, error) {
	z.reads++
	switch z.reads {
	case 1:
		return copy(p, z.data), nil
	case 2:
		return 0, nil
	}
	return 0, io.EOF
}

// TestEmptyReadsStampNothing: the arrival time is that of the last read
// that returned bytes; reads of nothing (and the end) move it not.
func TestEmptyReadsStampNothing(t *testing.T) {
	base := time.Unix(1_700_000_000, 0)
	stamps := 0
	tr := &timedReader{r: &zeroThenEOF{data: "abc"}, stamp: func() time.Time {
		stamps++
		return base.Add(time.Duration(stamps) * time.Second)
	}}
	buf := make([]byte, 8)
	for range 3 {
		tr.Read(buf)
	}
	if !tr.last.Equal(base.Add(time.Second)) {
		t.Errorf("last arrival %v, want the first read's %v", tr.last, base.Add(time.Second))
	}
}

// TestAnthropicSystemOnlyWhenGiven: a Messages request has a system field
// only when the conversation has system messages (an empty one is an
// error to some servers), joined by newlines.
func TestAnthropicSystemOnlyWhenGiven(t *testing.T) {
	b := anthropicAPI.body(&HTTPConfig{}, &Request{Prompt: "p", MaxTokens: 4})
	if _, ok := b["system"]; ok {
		t.Errorf("a system field without system messages: %v", b)
	}
	b = anthropicAPI.body(&HTTPConfig{}, &Request{MaxTokens: 4, Messages: []Message{{Role: "system", Content: "a"}, {Role: "system", Content: "b"}, {Role: "user", Content: "q"}}})
	if b["system"] != "a\nb" {
		t.Errorf("system %v", b["system"])
	}
}

// TestDoneAfterItsLastEvent: a [DONE] whose read was stamped before an
// earlier event's (reads stamped 2, 9 and 5 ms) still ends the response
// after every event it holds: at 9 ms.
func TestDoneAfterItsLastEvent(t *testing.T) {
	clock := record.NewClock()
	k := 0
	stamps := []int64{2, 9, 5}
	stamp := func() time.Time {
		at := clock.Time(stamps[min(k, len(stamps)-1)] * int64(time.Millisecond))
		k++
		return at
	}
	body := &oneLineAtATime{lines: []string{chunk("a"), `data: {"choices":[{"delta":{"content":""}}]}` + "\n\n", "data: [DONE]\n\n"}}
	rec := &record.Record{}
	Measure(body, stamp, rec, clock, APIChat, true, MeasureOptions{})
	if n := len(rec.OtherEvents); !rec.OK() || n != 1 || rec.Sent+rec.OtherEvents[0] != 9*int64(time.Millisecond) || rec.Done != rec.Sent+rec.OtherEvents[0] {
		t.Errorf("%v: other events %v after %d, done %d; want done at 9 ms", rec.Error, rec.OtherEvents, rec.Sent, rec.Done)
	}
}

// TestOutputlessUsageWithoutCounts: a usage of an embeddings answer that
// counts nothing says the prompt's tokens are not known (0), not 1.
func TestOutputlessUsageWithoutCounts(t *testing.T) {
	rec := &record.Record{Inputs: 1}
	Measure(strings.NewReader(`{"data":[{"embedding":[0.1,0.2]}],"usage":{"object":"usage"}}`), nil, rec, record.NewClock(), APIEmbeddings, false, MeasureOptions{})
	if !rec.OK() || rec.PromptTokens != 0 {
		t.Errorf("%v: %d prompt tokens from a usage of no counts", rec.Error, rec.PromptTokens)
	}
}

// TestTimingsPastTheLongest: llama.cpp's timings past 10^12 ms (31 years)
// are no durations and are left out.
func TestTimingsPastTheLongest(t *testing.T) {
	rec := measured(APILlamaCpp, true, `data: {"content":"a","stop":false}`+"\n\n"+
		`data: {"content":"","stop":true,"stop_type":"limit","tokens_predicted":1,"timings":{"prompt_ms":1.000001e12,"predicted_ms":2}}`+"\n\n")
	if !rec.OK() || rec.Server == nil || rec.Server.PromptEvalNS != 0 || rec.Server.EvalNS != 2e6 {
		t.Errorf("%v: server timing %+v", rec.Error, rec.Server)
	}
}
