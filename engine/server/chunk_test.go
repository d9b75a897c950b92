package server

import (
	"encoding/json"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
)

// TestTextChunkMatchesChunk: a chunk textChunk builds from its bytes
// decodes to what chunk's maps give for the same text (chat content and
// reasoning, a completion's text), escapes included: quotes, backslashes,
// control characters, HTML's <, > and &, U+2028, and invalid UTF-8.
func TestTextChunkMatchesChunk(t *testing.T) {
	texts := []string{"hi", ` "quoted" \ back`, "tab\tnew\nline\x01", "<b>&amp;</b>", "line\u2028sep", "caf\xc3", "\xff\xfe", "日本語", ""}
	for _, c := range []struct {
		chat  bool
		field string
	}{{true, "content"}, {true, "reasoning_content"}, {false, "text"}} {
		for _, text := range texts {
			fast, slow := httptest.NewRecorder(), httptest.NewRecorder()
			o := &response{w: fast, chat: c.chat, id: `cmpl-"x"`, model: "m<1>", created: 1700000000, stream: true}
			o.textChunk(c.field, text)
			o.textChunk(c.field, text) // the second from the bytes kept
			ref := &response{w: slow, chat: c.chat, id: o.id, model: o.model, created: o.created, stream: true}
			if c.field == "text" {
				ref.chunk(ref.delta(text), nil)
			} else {
				ref.chunk(map[string]any{c.field: text}, nil)
			}
			want := decodeEvents(t, slow.Body.String())
			got := decodeEvents(t, fast.Body.String())
			if len(want) != 1 || len(got) != 2 || !reflect.DeepEqual(got[0], want[0]) || !reflect.DeepEqual(got[1], want[0]) {
				t.Errorf("chat %v, %s %q:\n got %s\nwant %s", c.chat, c.field, text, fast.Body.String(), slow.Body.String())
			}
		}
	}
}

func decodeEvents(t *testing.T, body string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, ev := range strings.Split(strings.TrimSuffix(body, "\n\n"), "\n\n") {
		data, ok := strings.CutPrefix(ev, "data: ")
		if !ok {
			t.Fatalf("event %q lacks its data: prefix", ev)
		}
		var v map[string]any
		if err := json.Unmarshal([]byte(data), &v); err != nil {
			t.Fatalf("event %q: %v", data, err)
		}
		out = append(out, v)
	}
	return out
}
