package client

import (
	"context"
	"strings"
	"testing"

	"github.com/tpsbench/tpsbench/record"
)

// TestMalformedNamesItsPlace: a malformed event or line is named by its
// place in the stream, counting those that carried no token (a role
// chunk, a blank line) as the reader of the raw stream would.
func TestMalformedNamesItsPlace(t *testing.T) {
	role := "data: {\"choices\":[{\"delta\":{\"role\":\"assistant\"}}]}\n\n"
	ndjson := func(content string) string {
		return `{"model":"m","message":{"role":"assistant","content":"` + content + `"},"done":false}` + "\n"
	}
	for _, c := range []struct {
		name, api, ctype, body, want string
	}{
		{"SSE", APIChat, "text/event-stream", role + chunk("a") + "data: {\"choices\":[\n\n", "event 3: "},
		{"NDJSON", APIOllama, "application/x-ndjson", ndjson("") + "\n" + ndjson("a") + "{\"message\":\n", "line 4: "},
	} {
		t.Run(c.name, func(t *testing.T) {
			cl := newClient(t, rawServer(t, 200, c.ctype, c.body), func(h *HTTPConfig) { h.API = c.api })
			var rec record.Record
			cl.Do(context.Background(), &Request{Model: "m", Prompt: "p", MaxTokens: 8}, &rec)
			if rec.Error == nil || rec.Error.Kind != record.KindMalformed || !strings.HasPrefix(rec.Error.Message, c.want) {
				t.Errorf("error %+v, want one beginning %q", rec.Error, c.want)
			}
			if rec.OutputTokens != 1 {
				t.Errorf("%d tokens before it, want 1", rec.OutputTokens)
			}
		})
	}
}
