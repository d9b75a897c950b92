package server

import (
	"encoding/json"
	"fmt"

	"github.com/tpsbench/tpsbench/engine/sched"
	"github.com/tpsbench/tpsbench/engine/tokenizer"
)

// maxTopLogprobs bounds the alternatives a step reports (OpenAI's chat
// limit; vLLM's default).
const maxTopLogprobs = 20

// logprobsWanted reads the logprob fields: for chat, "logprobs": true and
// "top_logprobs": N; for completions, "logprobs": N.
func (req *request) logprobsWanted(chat bool) (want bool, top int, err error) {
	isNull := func(raw json.RawMessage) bool { return len(raw) == 0 || string(raw) == "null" }
	if chat {
		if !isNull(req.Logprobs) && json.Unmarshal(req.Logprobs, &want) != nil {
			return false, 0, badRequest{"logprobs", "logprobs must be true or false"}
		}
		if !isNull(req.TopLogprobs) {
			if json.Unmarshal(req.TopLogprobs, &top) != nil || top < 0 || top > maxTopLogprobs {
				return false, 0, badRequest{"top_logprobs", fmt.Sprintf("top_logprobs must be an integer from 0 to %d", maxTopLogprobs)}
			}
			if top > 0 && !want {
				return false, 0, badRequest{"top_logprobs", "top_logprobs needs logprobs set to true"}
			}
		}
		return want, top, nil
	}
	if !isNull(req.TopLogprobs) {
		return false, 0, badRequest{"top_logprobs", "top_logprobs is a chat field; completions take logprobs: N"}
	}
	if isNull(req.Logprobs) {
		return false, 0, nil
	}
	if json.Unmarshal(req.Logprobs, &top) != nil || top < 0 || top > maxTopLogprobs {
		return false, 0, badRequest{"logprobs", fmt.Sprintf("logprobs must be an integer from 0 to %d", maxTopLogprobs)}
	}
	return true, top, nil
}

// tokenLogprob is one generated token's entry.
type tokenLogprob struct {
	text    string
	offset  int // of the token's text in the generated text
	logprob float32
	top     []alternative
}

type alternative struct {
	text    string
	logprob float32
}

func newTokenLogprob(tok *tokenizer.Tokenizer, id, offset int, lp *sched.Logprob) tokenLogprob {
	e := tokenLogprob{text: tok.Piece(id), offset: offset, logprob: finiteLogprob(lp.Logprob)}
	for _, a := range lp.Top {
		e.top = append(e.top, alternative{tok.Piece(a.Token), finiteLogprob(a.Logprob)})
	}
	return e
}

// minLogprob stands for a probability of 0, as vLLM and OpenAI send it.
const minLogprob = -9999

// finiteLogprob is a logprob JSON can carry: -Inf (and the NaN of a
// model whose weights hold NaN) as minLogprob, +Inf (no probability is
// above 1) as 0. JSON has no NaN: the answer was an empty HTTP 200.
func finiteLogprob(x float32) float32 {
	switch {
	case x != x || x < minLogprob:
		return minLogprob
	case x > 0:
		return 0
	}
	return x
}

// bytesOf is a token text's bytes as the JSON numbers OpenAI gives (a
// token may be part of a UTF-8 character).
func bytesOf(s string) []int {
	out := make([]int, len(s))
	for i := 0; i < len(s); i++ {
		out[i] = int(s[i])
	}
	return out
}

// logprobsJSON is the "logprobs" of a choice: chat's list of entries, or
// completions' parallel lists.
func logprobsJSON(chat bool, entries []tokenLogprob) map[string]any {
	if chat {
		content := make([]any, 0, len(entries))
		for _, e := range entries {
			top := make([]any, 0, len(e.top))
			for _, a := range e.top {
				top = append(top, map[string]any{"token": a.text, "logprob": a.logprob, "bytes": bytesOf(a.text)})
			}
			content = append(content, map[string]any{"token": e.text, "logprob": e.logprob, "bytes": bytesOf(e.text), "top_logprobs": top})
		}
		return map[string]any{"content": content}
	}
	tokens, lps, tops, offsets := []string{}, []float32{}, []any{}, []int{}
	for _, e := range entries {
		tokens, lps, offsets = append(tokens, e.text), append(lps, e.logprob), append(offsets, e.offset)
		top := map[string]float32{}
		for _, a := range e.top {
			if _, seen := top[a.text]; !seen { // two ids may spell one text: the likelier stays
				top[a.text] = a.logprob
			}
		}
		tops = append(tops, top)
	}
	return map[string]any{"tokens": tokens, "token_logprobs": lps, "top_logprobs": tops, "text_offset": offsets}
}
