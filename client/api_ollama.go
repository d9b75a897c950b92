package client

import "github.com/tpsbench/tpsbench/record"

// APIOllama is Ollama's native chat API (/api/chat, NDJSON streaming).
const APIOllama = "ollama"

var ollamaAPI = protocol{
	name:      APIOllama,
	help:      "/api/chat, with its eval counts and durations recorded",
	path:      "/api/chat",
	endpoints: []string{"/api/chat"},
	proxied:   []string{"/api/generate"},
	body:      ollamaBody,
	scanner: func(st *streamState) scanFunc {
		return func(b []byte, ci *chunkInfo) error { return scanOllama(b, ci, &st.srv) }
	},
	ndjson:     true,
	chat:       true,
	modelLists: []string{"/api/tags"},
	probe:      &probe{"/api/tags", "models", "it answers Ollama's /api/tags and no /v1/models"},
	// Ollama streams unless told not to
	streams: func(_ string, stream *bool) bool { return stream == nil || *stream },
	budget:  []string{"options.num_predict"},
	prompt:  "messages",
}

// ollamaBody is the request for /api/chat.
func ollamaBody(cfg *HTTPConfig, req *Request) map[string]any {
	opts := map[string]any{}
	if req.MaxTokens > 0 {
		opts["num_predict"] = req.MaxTokens
	}
	if cfg.Temperature != nil {
		opts["temperature"] = *cfg.Temperature
	}
	putSampling(opts, cfg.Sampling, llamaNames)
	return map[string]any{"model": req.Model, "messages": messages(req), "stream": cfg.Stream, "options": opts}
}

// scanOllama reads one Ollama response object into ci, and its server
// timings into srv.
func scanOllama(data []byte, ci *chunkInfo, srv *record.ServerTiming) error {
	s, err := objectScanner(data, ci)
	if err != nil {
		return err
	}
	var done bool
	var reason []byte
	num := func(dst *int64) error {
		n, err := s.int()
		*dst = int64(n)
		return err
	}
	err = s.object(func(key []byte) error {
		switch string(key) {
		case "response":
			return s.text(ci, false)
		case "message":
			if s.peek() == '{' {
				return s.object(func(k []byte) error {
					switch string(k) {
					case "content":
						return s.text(ci, false)
					case "thinking":
						return s.text(ci, true)
					case "tool_calls":
						if s.peek() == '[' {
							n := 0
							err := s.array(func() error { n++; return s.skip() })
							ci.toolCall = ci.toolCall || n > 0
							return err
						}
					}
					return s.skip()
				})
			}
		case "done":
			if s.peek() == 't' {
				done = true
			}
		case "done_reason":
			if s.peek() == '"' {
				v, err := s.str()
				reason = v
				return err
			}
		case "eval_count":
			ci.hasUsage = true
			n, err := s.int()
			ci.completion = n
			return err
		case "prompt_eval_count":
			n, err := s.int()
			ci.prompt = n
			return err
		case "total_duration":
			return num(&srv.TotalNS)
		case "load_duration":
			return num(&srv.LoadNS)
		case "prompt_eval_duration":
			return num(&srv.PromptEvalNS)
		case "eval_duration":
			return num(&srv.EvalNS)
		case "error":
			ci.hasError = true
			if s.peek() == '"' {
				v, err := s.str()
				ci.errMsg = v
				return err
			}
		}
		return s.skip()
	})
	if err != nil {
		return err
	}
	if done {
		ci.finish = reason
		if len(ci.finish) == 0 {
			ci.finish = []byte("stop")
		}
	}
	return nil
}
