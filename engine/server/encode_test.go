package server

import (
	"encoding/json"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// A model whose weights hold NaN gives NaN logprobs, and JSON has none:
// the answer was an HTTP 200 with an empty body, or events that were not
// JSON.
func TestLogprobsAlwaysFinite(t *testing.T) {
	nan := float32(math.NaN())
	for _, c := range []struct{ in, want float32 }{
		{nan, minLogprob}, {float32(math.Inf(-1)), minLogprob}, {-1e30, minLogprob},
		{float32(math.Inf(1)), 0}, {0.5, 0}, {-1.5, -1.5}, {0, 0},
	} {
		if got := finiteLogprob(c.in); got != c.want {
			t.Errorf("finiteLogprob(%v) = %v, want %v", c.in, got, c.want)
		}
	}
}

// Whatever fails to encode, the body is what the status says: an error
// event in a stream, an error answer with a 500 otherwise.
func TestNoBodyThatIsNotJSON(t *testing.T) {
	rec := httptest.NewRecorder()
	(&response{w: rec, stream: true}).event(map[string]any{"x": math.NaN()})
	data, ok := strings.CutPrefix(rec.Body.String(), "data: ")
	var ev struct {
		Error struct{ Message string } `json:"error"`
	}
	if !ok || json.Unmarshal([]byte(strings.TrimSpace(data)), &ev) != nil || !strings.Contains(ev.Error.Message, "encoding an event") {
		t.Errorf("stream event %q", rec.Body.String())
	}
	rec = httptest.NewRecorder()
	o := &response{w: rec, chat: true, logprobs: true, all: []tokenLogprob{{text: "a", logprob: float32(math.NaN())}}}
	o.text.WriteString("a")
	o.whole("stop")
	var answer struct {
		Error struct{ Message string } `json:"error"`
	}
	if rec.Code != http.StatusInternalServerError || json.Unmarshal(rec.Body.Bytes(), &answer) != nil || !strings.Contains(answer.Error.Message, "encoding the answer") {
		t.Errorf("whole answer: HTTP %d %q", rec.Code, rec.Body.String())
	}
}
