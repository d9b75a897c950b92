package client

import (
	"errors"
	"fmt"
	"io"

	"github.com/tpsbench/tpsbench/record"
)

// APIOllama is Ollama's native chat API (/api/chat, NDJSON streaming).
const APIOllama = "ollama"

// ollamaBody is the request for /api/chat.
func (c *HTTP) ollamaBody(req *Request) map[string]any {
	msgs := req.Messages
	if len(msgs) == 0 {
		msgs = []Message{{Role: "user", Content: req.Prompt}}
	}
	opts := map[string]any{}
	if req.MaxTokens > 0 {
		opts["num_predict"] = req.MaxTokens
	}
	if c.cfg.Temperature != nil {
		opts["temperature"] = *c.cfg.Temperature
	}
	b := map[string]any{"model": req.Model, "messages": msgs, "stream": c.cfg.Stream, "options": opts}
	for k, v := range c.cfg.Extra {
		b[k] = v
	}
	return b
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

// readNDJSON consumes Ollama's stream: one JSON object a line, each
// stamped when its bytes arrive.
func (st *streamState) readNDJSON(body io.Reader) {
	sse := newSSEReader(body) // for its timed line reader
	defer sse.release()
	sse.tr.stamp = st.stamp
	var ci chunkInfo
	st.chunkUsage = false
	srv := &record.ServerTiming{}
	for {
		line, err := sse.readLine()
		if err != nil {
			if !st.doneSeen {
				st.rec.Done = st.clock.Now()
			}
			switch {
			case errors.Is(err, io.EOF):
				if st.rec.FinishReason == "" {
					st.fail(record.KindStreamCut, errors.New("stream ended before done: true"))
				}
			case errors.Is(err, errEventTooLong):
				st.fail(record.KindMalformed, err)
			default:
				st.fail(record.KindStreamCut, fmt.Errorf("reading stream: %w", err))
			}
			break
		}
		if len(line) == 0 {
			continue
		}
		at := st.stampOf(sse.tr.last)
		if err := scanOllama(line, &ci, srv); err != nil {
			st.rec.Done = at
			st.fail(record.KindMalformed, fmt.Errorf("line %d: %w: %.80q", len(st.bytesPer)+1, err, line))
			break
		}
		if ci.hasError {
			st.rec.Done = at
			st.fail(record.KindServerError, errors.New("server error mid-stream: "+unquote(ci.errMsg)))
			break
		}
		st.take(&ci, at)
		if len(ci.finish) > 0 {
			st.rec.Done = at
			st.doneSeen = true
		}
	}
	if srv.TotalNS > 0 || srv.EvalNS > 0 {
		st.rec.Server = srv
	}
}
