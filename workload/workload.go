// Package workload supplies what each request asks for: its prompt (or chat
// messages) and its output budget.
package workload

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/tpsbench/tpsbench/content"
	"github.com/tpsbench/tpsbench/record"
)

// Item is one request's content.
type Item struct {
	Prompt    string
	Messages  []content.Message // for chat; when empty, Prompt is sent as one user message
	MaxTokens int
	// Model, when set, is the model the request asks for in place of its
	// step's (a ModelMix's: a LoRA adapter, say).
	Model string
	// Media (images, audio, video) go with the prompt (its last user
	// message) for a multimodal model, or are what a transcription
	// request transcribes (WithMedia).
	Media []content.Media
	// Trace is what a replayed trace asked of the request, kept in its
	// record.
	Trace *record.TraceRef
	// Inputs, when set, are the texts of a batch request (Batched).
	Inputs []string
	// Grade, when set, says whether an answer to the item is right (a
	// question of an accuracy set, Questions): its record keeps the
	// verdict and the answer's fingerprint.
	Grade func(answer string) bool
}

// MaxPromptTokens bounds the prompts made of words (--input-tokens, a
// trace's input lengths): a million tokens is as long as the longest
// contexts served today take in one request, and about 6 MB of words. A
// length past it is a claim (a trace line, a proxy record an upstream's
// usage wrote) that would otherwise size a prompt of gigabytes.
const MaxPromptTokens = 1 << 20

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

// ParsePrompt reads a request's prompt as an OpenAI request carries it:
// a chat messages array (each content a string or an array of text
// parts, joined) or a completion's prompt string.
func ParsePrompt(raw json.RawMessage) (Item, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '[' {
		var msgs []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		}
		if err := json.Unmarshal(raw, &msgs); err != nil {
			return Item{}, fmt.Errorf("messages: %w", err)
		}
		it := Item{Messages: make([]content.Message, 0, len(msgs))}
		for i, m := range msgs {
			text, err := contentText(m.Content)
			if err != nil {
				return Item{}, fmt.Errorf("messages[%d].content: %w", i, err)
			}
			it.Messages = append(it.Messages, content.Message{Role: m.Role, Content: text})
		}
		return it, nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return Item{}, errors.New("a prompt: want a string or a messages array")
	}
	return Item{Prompt: s}, nil
}

// contentText is a message content's text: a string, or its text parts
// joined.
func contentText(c json.RawMessage) (string, error) {
	if len(bytes.TrimSpace(c)) == 0 || string(bytes.TrimSpace(c)) == "null" {
		return "", nil
	}
	var s string
	if json.Unmarshal(c, &s) == nil {
		return s, nil
	}
	var parts []struct {
		Text string `json:"text"`
	}
	if err := json.Unmarshal(c, &parts); err != nil {
		return "", errors.New("want a string or an array of text parts")
	}
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text)
	}
	return b.String(), nil
}
