package client

// Sampling are the sampling parameters a run passes on to the server,
// each only when set, under the name the API gives it.
type Sampling struct {
	TopP, MinP                                           *float64
	FrequencyPenalty, PresencePenalty, RepetitionPenalty *float64
	TopK                                                 *int
	Stop                                                 []string
}

// putSampling puts s's parameters into fields in OpenAI's (and vLLM's)
// names, or in those rename gives them; a parameter renamed "" is one the
// API does not take, and is left out.
func putSampling(fields map[string]any, s Sampling, rename map[string]string) {
	put := func(name string, v any) {
		if to, ok := rename[name]; ok {
			name = to
		}
		if name != "" {
			fields[name] = v
		}
	}
	for _, p := range []struct {
		name string
		v    *float64
	}{{"top_p", s.TopP}, {"min_p", s.MinP}, {"frequency_penalty", s.FrequencyPenalty},
		{"presence_penalty", s.PresencePenalty}, {"repetition_penalty", s.RepetitionPenalty}} {
		if p.v != nil {
			put(p.name, *p.v)
		}
	}
	if s.TopK != nil {
		put("top_k", *s.TopK)
	}
	if len(s.Stop) > 0 {
		put("stop", s.Stop)
	}
}

// llamaNames are llama.cpp's and Ollama's names that differ from OpenAI's.
var llamaNames = map[string]string{"repetition_penalty": "repeat_penalty"}
