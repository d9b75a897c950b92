package server

import (
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/tpsbench/tpsbench/engine/tokenizer"
)

// TestThinkTags: with the think-tag parser, what comes before </think>
// (an opening <think> dropped, tags split over tokens held back until
// they complete) is reasoning_content, what follows is content, and usage
// counts the tokens made inside the tags; streamed and whole alike.
func TestThinkTags(t *testing.T) {
	pieces := []string{"<unk>", "<th", "ink>", "hm", " so", "</", "think>", "\n\nYes", ".", "</think>", "<think>", "\n", "think", "a", "b"}
	tok, err := tokenizer.New(pieces, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	id := map[string]int{}
	for i, p := range pieces {
		id[p] = i
	}
	cases := []struct {
		name              string
		tokens            []string
		reasoning, answer string
		thought           int
	}{
		{"tags split over tokens", []string{"<th", "ink>", "hm", " so", "</", "think>", "\n\nYes", "."}, "hm so", "\n\nYes.", 6},
		{"opened by the template", []string{"hm", "</think>", "a"}, "hm", "a", 2},
		{"whitespace before the tag", []string{"\n", "<think>", "a", "</think>", "b"}, "a", "b", 4},
		{"never closed", []string{"hm", " so", "</"}, "hm so</", "", 3},
		{"not a tag after all", []string{"hm", "</", "think", "a"}, "hm</thinka", "", 4},
	}
	for _, c := range cases {
		for _, stream := range []bool{true, false} {
			rec := httptest.NewRecorder()
			o := &response{w: rec, chat: true, stream: stream, tok: tok, thinking: thinkOpening, usage: true}
			o.begin()
			for _, p := range c.tokens {
				o.token(id[p], nil)
			}
			o.end("length")
			reasoning, answer, usage := collect(t, rec.Body.String(), stream)
			if reasoning != c.reasoning || answer != c.answer || usage != c.thought {
				t.Errorf("%s (stream %v): reasoning %q, answer %q, %d reasoning tokens; want %q, %q, %d",
					c.name, stream, reasoning, answer, usage, c.reasoning, c.answer, c.thought)
			}
		}
	}
}

// collect reads a chat response's reasoning, content and usage's
// reasoning tokens, streamed or whole.
func collect(t *testing.T, body string, stream bool) (reasoning, answer string, tokens int) {
	t.Helper()
	type message struct {
		Content          string `json:"content"`
		ReasoningContent string `json:"reasoning_content"`
	}
	var obj struct {
		Choices []struct {
			Delta   message `json:"delta"`
			Message message `json:"message"`
		} `json:"choices"`
		Usage *struct {
			Details *struct {
				ReasoningTokens int `json:"reasoning_tokens"`
			} `json:"completion_tokens_details"`
		} `json:"usage"`
	}
	var datas []string
	if stream {
		for _, line := range strings.Split(body, "\n") {
			if d, ok := strings.CutPrefix(line, "data: "); ok && d != "[DONE]" {
				datas = append(datas, d)
			}
		}
	} else {
		datas = []string{body}
	}
	for _, d := range datas {
		obj.Choices, obj.Usage = nil, nil
		if err := json.Unmarshal([]byte(d), &obj); err != nil {
			t.Fatalf("%v: %s", err, d)
		}
		for _, ch := range obj.Choices {
			reasoning += ch.Delta.ReasoningContent + ch.Message.ReasoningContent
			answer += ch.Delta.Content + ch.Message.Content
		}
		if obj.Usage != nil && obj.Usage.Details != nil {
			tokens = obj.Usage.Details.ReasoningTokens
		}
	}
	return reasoning, answer, tokens
}
