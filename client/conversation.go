package client

import (
	"context"
	"strings"

	"github.com/tpsbench/tpsbench/record"
)

// Conversation is a chat with one server, turn by turn: each Say sends the
// conversation so far with the user's new message and keeps the answer as
// history for the next turn (a failed turn is not kept). The text streams
// to the client's OnToken as it comes; each turn's record holds its
// figures.
type Conversation struct {
	Client    Client
	Model     string
	MaxTokens int
	// System, when set, is the system message the conversation opens with.
	System   string
	messages []Message
}

// Say sends text as the user's next message, fills rec with the turn's
// timeline and counts, and returns the answer's text.
func (c *Conversation) Say(ctx context.Context, text string, rec *record.Record) string {
	if len(c.messages) == 0 && c.System != "" {
		c.messages = append(c.messages, Message{Role: "system", Content: c.System})
	}
	asked := append(c.messages, Message{Role: "user", Content: text})
	var answer strings.Builder
	c.Client.Do(ctx, &Request{Model: c.Model, Messages: asked, MaxTokens: c.MaxTokens, Answer: &answer}, rec)
	if rec.OK() {
		c.messages = append(asked, Message{Role: "assistant", Content: answer.String()})
	}
	return answer.String()
}

// History is the conversation's messages so far.
func (c *Conversation) History() []Message { return append([]Message(nil), c.messages...) }
