package client

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/tpsbench/tpsbench/internal/scripted"
	"github.com/tpsbench/tpsbench/record"
)

// TestConversation: each turn sends the system message, every earlier
// turn and its answer, then the new message; a failed turn is not kept.
func TestConversation(t *testing.T) {
	srv := scripted.NewFunc(func(seq int) scripted.Script {
		if seq == 1 {
			return scripted.Script{Status: 503}
		}
		return scripted.Script{TTFT: 5 * time.Millisecond, Gap: time.Millisecond, Usage: true, Word: " hi"}
	})
	defer srv.Close()
	cl := newClient(t, srv.URL, nil)
	conv := &Conversation{Client: cl, Model: "m", MaxTokens: 3, System: "be brief"}
	var sent [][]Message
	for _, text := range []string{"one", "two", "three"} {
		var rec record.Record
		answer := conv.Say(context.Background(), text, &rec)
		log, _ := srv.Log(rec.ResponseID)
		var body struct{ Messages []Message }
		json.Unmarshal(log.Request, &body)
		sent = append(sent, body.Messages)
		if text != "two" && (answer != " hi hi hi" || !rec.OK() || rec.OutputTokens != 3) {
			t.Errorf("%s: answer %q, %+v", text, answer, rec.Error)
		}
	}
	want := []Message{{Role: "system", Content: "be brief"}, {Role: "user", Content: "one"}, {Role: "assistant", Content: " hi hi hi"}, {Role: "user", Content: "three"}}
	if got := sent[2]; len(got) != len(want) {
		t.Fatalf("third turn sent %+v, want %+v", got, want)
	}
	for i, m := range want {
		if sent[2][i] != m {
			t.Errorf("third turn's message %d: %+v, want %+v", i, sent[2][i], m)
		}
	}
	if h := conv.History(); len(h) != 5 || h[4].Content != " hi hi hi" {
		t.Errorf("history %+v", h)
	}
}
