package client

import "github.com/tpsbench/tpsbench/record"

// APILlamaCpp is llama.cpp server's /completion, with its timings.
const APILlamaCpp = "llamacpp"

var llamaCppAPI = protocol{
	name:      APILlamaCpp,
	help:      "llama.cpp's /completion, with its timings recorded",
	path:      "/completion",
	endpoints: []string{"/completion"},
	body:      llamaCppBody,
	scanner: func(st *streamState) scanFunc {
		return func(b []byte, ci *chunkInfo) error { return scanLlamaCpp(b, ci, &st.srv) }
	},
	probe:  &probe{"/props", "default_generation_settings", "it answers llama.cpp's /props and no /v1/models"},
	budget: []string{"n_predict"},
	prompt: "prompt",
}

func llamaCppBody(cfg *HTTPConfig, req *Request) map[string]any {
	b := map[string]any{"prompt": promptText(req), "stream": cfg.Stream}
	setSampling(b, cfg, req, "n_predict", llamaNames)
	return b
}

// scanLlamaCpp reads one event of llama.cpp server's /completion (or its
// whole response): content, then a last event with stop: true, the
// counts and the server's timings.
func scanLlamaCpp(data []byte, ci *chunkInfo, srv *record.ServerTiming) error {
	s, err := objectScanner(data, ci)
	if err != nil {
		return err
	}
	var stop bool
	var stopType []byte
	err = s.object(func(key []byte) error {
		switch string(key) {
		case "content":
			return s.text(ci, false)
		case "stop":
			stop = s.peek() == 't'
		case "stop_type":
			if s.peek() == '"' {
				return s.strInto(&stopType)
			}
		case "tokens_predicted":
			ci.hasUsage = true
			return s.intInto(&ci.completion)
		case "tokens_evaluated":
			return s.intInto(&ci.prompt)
		case "id_slot", "index":
		case "timings":
			return s.llamaTimings(srv)
		case "error":
			ci.hasError = true
			return s.errorValue(ci)
		}
		return s.skip()
	})
	if err != nil {
		return err
	}
	if stop {
		ci.finish = []byte("stop")
		if string(stopType) == "limit" {
			ci.finish = []byte("length")
		}
	}
	return s.end()
}

// llamaTimings reads llama.cpp server's timings object (its /completion
// and its OpenAI endpoints send one): the prompt's and the generation's
// milliseconds.
func (s *scanner) llamaTimings(srv *record.ServerTiming) error {
	if s.peek() != '{' {
		return s.skip()
	}
	return s.object(func(k []byte) error {
		switch string(k) {
		case "prompt_ms":
			return s.msInto(&srv.PromptEvalNS)
		case "predicted_ms":
			return s.msInto(&srv.EvalNS)
		}
		return s.skip()
	})
}
