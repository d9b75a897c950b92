// Package workload supplies what each request asks for: its prompt (or chat
// messages) and its output budget.
package workload

import "github.com/tpsbench/tpsbench/record"

// Item is one request's content.
type Item struct {
	Prompt    string
	Messages  []Message // for chat; when empty, Prompt is sent as one user message
	MaxTokens int
	// Trace is what a replayed trace asked of the request, kept in its
	// record.
	Trace *record.TraceRef
}

// Message is one chat turn, as the OpenAI chat API writes it.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// Source yields the item for the seq-th request of a step. It must be safe
// for concurrent use and give the same item for the same seq (runs are
// reproducible).
type Source interface {
	Item(seq int, warmup bool) Item
}

// Fixed sends the same prompt every time.
type Fixed struct {
	Prompt    string
	MaxTokens int
}

// Item implements Source.
func (f Fixed) Item(int, bool) Item { return Item{Prompt: f.Prompt, MaxTokens: f.MaxTokens} }
