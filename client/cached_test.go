package client

import (
	"net/http"
	"strings"
	"testing"

	"github.com/tpsbench/tpsbench/record"
)

// TestCachedTokens: each API's report of the prompt tokens its server's
// cache held becomes the record's count, never more than the prompt.
func TestCachedTokens(t *testing.T) {
	for _, c := range []struct {
		api, body string
		stream    bool
		cached    int
	}{
		{APIChat, chunk("a") + `data: {"choices":[],"usage":{"prompt_tokens":40,"completion_tokens":1,"prompt_tokens_details":{"cached_tokens":32}}}` + "\n\ndata: [DONE]\n\n", true, 32},
		{APIChat, `{"choices":[{"message":{"content":"a"},"finish_reason":"stop"}],"usage":{"prompt_tokens":40,"completion_tokens":1,"prompt_tokens_details":{"cached_tokens":16}}}`, false, 16},
		{APIChat, `{"choices":[{"message":{"content":"a"},"finish_reason":"stop"}],"usage":{"prompt_tokens":4,"completion_tokens":1,"prompt_tokens_details":{"cached_tokens":99}}}`, false, 4},
		{APIResponses, `{"object":"response","status":"completed","output":[{"type":"message","content":[{"type":"output_text","text":"a"}]}],"usage":{"input_tokens":20,"output_tokens":1,"input_tokens_details":{"cached_tokens":8}}}`, false, 8},
		{APISGLang, `{"text":"a","meta_info":{"prompt_tokens":30,"completion_tokens":1,"cached_tokens":24,"finish_reason":{"type":"stop"}}}`, false, 24},
	} {
		rec := &record.Record{}
		h := http.Header{}
		if c.stream {
			h.Set("Content-Type", "text/event-stream")
		}
		Measure(strings.NewReader(c.body), nil, rec, record.NewClock(), c.api, c.stream, MeasureOptions{Header: h})
		if rec.Error != nil || rec.CachedTokens != c.cached {
			t.Errorf("%s %.60s: %d cached (error %v), want %d", c.api, c.body, rec.CachedTokens, rec.Error, c.cached)
		}
	}
}
