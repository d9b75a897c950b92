package client

import (
	"fmt"
	"strings"
)

// promptText is the request as one prompt, for APIs that take no
// messages: each message as "role: content" on its lines, then the
// assistant's turn.
func promptText(req *Request) string {
	if len(req.Messages) == 0 {
		return req.Prompt
	}
	var b strings.Builder
	for _, m := range req.Messages {
		fmt.Fprintf(&b, "%s: %s\n", m.Role, m.Content)
	}
	b.WriteString("assistant:")
	return b.String()
}

// messages is the request as chat messages.
func messages(req *Request) []Message {
	if len(req.Messages) == 0 {
		return []Message{{Role: "user", Content: req.Prompt}}
	}
	return req.Messages
}
