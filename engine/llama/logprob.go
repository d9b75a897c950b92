package llama

import "math"

// TokenLogprob is a token and its log-probability.
type TokenLogprob struct {
	Token   int
	Logprob float32
}

// Logprobs returns token's log-probability under the softmax of logits
// (the model's own distribution, before temperature or truncation, as
// vLLM reports it) and the top most likely tokens, most likely first
// (lower ids first among equals).
func Logprobs(logits []float32, token, top int) (float32, []TokenLogprob) {
	mx := logits[argmax(logits)]
	var sum float64
	for _, v := range logits {
		sum += math.Exp(float64(v - mx))
	}
	lse := float64(mx) + math.Log(sum)
	lp := func(i int) float32 { return float32(float64(logits[i]) - lse) }
	if top <= 0 {
		return lp(token), nil
	}
	top = min(top, len(logits))
	best := make([]TokenLogprob, 0, top+1)
	for i, v := range logits {
		if len(best) == top && v <= logits[best[top-1].Token] {
			continue
		}
		// insert after every entry at least as likely: ids stay ascending
		// among equals
		j := len(best)
		for j > 0 && logits[best[j-1].Token] < v {
			j--
		}
		best = append(best, TokenLogprob{})
		copy(best[j+1:], best[j:])
		best[j] = TokenLogprob{Token: i}
		if len(best) > top {
			best = best[:top]
		}
	}
	for i := range best {
		best[i].Logprob = lp(best[i].Token)
	}
	return lp(token), best
}
