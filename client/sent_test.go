package client

import (
	"reflect"
	"testing"
)

// TestSent: what a report says every request carried is the body's own
// fields (in the API's names, nested where the API nests them) less the
// model, prompt and budget: the OpenAI chat API's sampling and stream
// flags, Ollama's options without num_predict, and --extra-body's fields.
func TestSent(t *testing.T) {
	temp, topP, topK := 0.0, 0.9, 40
	for _, tc := range []struct {
		api  string
		want map[string]any
	}{
		{APIChat, map[string]any{"stream": true, "stream_options": map[string]any{"include_usage": true}, "temperature": 0.0,
			"top_p": 0.9, "top_k": 40, "ignore_eos": true, "priority": 1}},
		{APIOllama, map[string]any{"stream": true, "options": map[string]any{"temperature": 0.0, "top_p": 0.9, "top_k": 40}, "priority": 1}},
	} {
		c, err := NewHTTP(HTTPConfig{URL: "http://127.0.0.1:1", API: tc.api, Stream: true, IgnoreEOS: true, Temperature: &temp,
			Sampling: Sampling{TopP: &topP, TopK: &topK}, Extra: map[string]any{"priority": 1}})
		if err != nil {
			t.Fatal(err)
		}
		if got := c.Sent(); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: %#v\nwant %#v", tc.api, got, tc.want)
		}
	}
}
