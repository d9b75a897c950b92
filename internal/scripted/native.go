package scripted

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// call is one request to a native API, as its dialect renders it.
type call struct {
	id, model string
	n, prompt int
	sc        Script
	sofar     strings.Builder // the text so far (SGLang sends it whole each time; the Responses API at its end)
	block     string          // the content block open (Anthropic's): "", "thinking" or "text"
	blocks    int             // blocks opened so far
}

// dialect renders a native API's responses: a token event's SSE lines,
// what follows the last, and a whole response.
type dialect struct {
	oneToken bool // one token an event, whatever Script.PerEvent says (TGI)
	start    func(c *call) string
	event    func(c *call, text string, reasoning bool, k, done int) string
	end      func(c *call) string
	whole    func(c *call, reasoning, answer string) string
}

func q(s string) string { b, _ := json.Marshal(s); return string(b) }

var dialects = map[string]dialect{
	"anthropic": {
		start: func(c *call) string {
			return fmt.Sprintf("event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":%s,\"type\":\"message\",\"role\":\"assistant\",\"content\":[],\"model\":%s,\"stop_reason\":null,\"usage\":{\"input_tokens\":%d,\"output_tokens\":1}}}\n\n",
				q(c.id), q(c.model), c.prompt)
		},
		event: func(c *call, text string, reasoning bool, _, _ int) string {
			var b strings.Builder
			kind, field, delta := "text", "text", "text_delta"
			if reasoning {
				kind, field, delta = "thinking", "thinking", "thinking_delta"
			}
			if c.block != kind {
				b.WriteString(anthropicBlockStop(c))
				fmt.Fprintf(&b, "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":%d,\"content_block\":{\"type\":%q,%q:\"\"}}\n\n", c.blocks, kind, field)
				c.block = kind
				c.blocks++
			}
			fmt.Fprintf(&b, "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":%d,\"delta\":{\"type\":%q,%q:%s}}\n\n", c.blocks-1, delta, field, q(text))
			return b.String()
		},
		end: func(c *call) string {
			return anthropicBlockStop(c) +
				fmt.Sprintf("event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"max_tokens\",\"stop_sequence\":null},\"usage\":{\"output_tokens\":%d}}\n\n", c.n) +
				"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"
		},
		whole: func(c *call, reasoning, answer string) string {
			var content []any
			if reasoning != "" {
				content = append(content, map[string]any{"type": "thinking", "thinking": reasoning, "signature": "sig"})
			}
			content = append(content, map[string]any{"type": "text", "text": answer})
			b, _ := json.Marshal(map[string]any{"id": c.id, "type": "message", "role": "assistant", "model": c.model, "content": content,
				"stop_reason": "max_tokens", "stop_sequence": nil, "usage": map[string]any{"input_tokens": c.prompt, "output_tokens": c.n}})
			return string(b)
		},
	},
	"responses": {
		start: func(c *call) string {
			return fmt.Sprintf("event: response.created\ndata: {\"type\":\"response.created\",\"response\":{\"id\":%s,\"object\":\"response\",\"status\":\"in_progress\"}}\n\n", q(c.id))
		},
		event: func(c *call, text string, reasoning bool, _, _ int) string {
			typ := "response.output_text.delta"
			if reasoning {
				typ = "response.reasoning_text.delta"
			} else {
				c.sofar.WriteString(text)
			}
			return fmt.Sprintf("event: %s\ndata: {\"type\":%q,\"item_id\":\"item\",\"output_index\":0,\"content_index\":0,\"delta\":%s}\n\n", typ, typ, q(text))
		},
		end: func(c *call) string {
			// the whole output again, as OpenAI's and llama.cpp's servers
			// send it: a client must not count it as more tokens
			out := []any{map[string]any{"type": "message", "role": "assistant", "content": []any{map[string]any{"type": "output_text", "text": c.sofar.String()}}}}
			return fmt.Sprintf("event: response.incomplete\ndata: {\"type\":\"response.incomplete\",\"response\":%s}\n\n", responsesObject(c, out))
		},
		whole: func(c *call, reasoning, answer string) string {
			var out []any
			if reasoning != "" {
				out = append(out, map[string]any{"type": "reasoning", "content": []any{map[string]any{"type": "reasoning_text", "text": reasoning}}})
			}
			out = append(out, map[string]any{"type": "message", "role": "assistant", "content": []any{map[string]any{"type": "output_text", "text": answer}}})
			return responsesObject(c, out)
		},
	},
	"llamacpp": {
		event: func(c *call, text string, _ bool, _, _ int) string {
			return fmt.Sprintf("data: {\"content\":%s,\"stop\":false,\"id_slot\":0}\n\n", q(text))
		},
		end: func(c *call) string { return "data: " + llamaFinal(c, "") + "\n\n" },
		whole: func(c *call, _, answer string) string {
			return llamaFinal(c, answer)
		},
	},
	"tgi": {
		oneToken: true,
		event: func(c *call, text string, _ bool, k, done int) string {
			c.sofar.WriteString(text)
			gen, details := "null", "null"
			if done+k == c.n {
				gen, details = q(c.sofar.String()), fmt.Sprintf(`{"finish_reason":"length","generated_tokens":%d,"seed":null}`, c.n)
			}
			return fmt.Sprintf("data: {\"index\":%d,\"token\":{\"id\":7,\"text\":%s,\"logprob\":-0.5,\"special\":false},\"generated_text\":%s,\"details\":%s}\n\n", done+1, q(text), gen, details)
		},
		end: func(*call) string { return "" },
		whole: func(c *call, _, answer string) string {
			return fmt.Sprintf(`{"generated_text":%s,"details":{"finish_reason":"length","generated_tokens":%d,"seed":null}}`, q(answer), c.n)
		},
	},
	"sglang": {
		event: func(c *call, text string, _ bool, k, done int) string {
			c.sofar.WriteString(text)
			finish := "null"
			if done+k == c.n {
				finish = fmt.Sprintf(`{"type":"length","length":%d}`, c.n)
			}
			return fmt.Sprintf("data: {\"text\":%s,\"meta_info\":{\"id\":%s,\"finish_reason\":%s,\"prompt_tokens\":%d,\"completion_tokens\":%d},\"index\":0}\n\n",
				q(c.sofar.String()), q(c.id), finish, c.prompt, done+k)
		},
		end: func(*call) string { return "data: [DONE]\n\n" },
		whole: func(c *call, _, answer string) string {
			return fmt.Sprintf(`{"text":%s,"meta_info":{"id":%s,"finish_reason":{"type":"length","length":%d},"prompt_tokens":%d,"completion_tokens":%d}}`,
				q(answer), q(c.id), c.n, c.prompt, c.n)
		},
	},
}

// anthropicBlockStop closes the content block open, if one is.
func anthropicBlockStop(c *call) string {
	if c.block == "" {
		return ""
	}
	c.block = ""
	return fmt.Sprintf("event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":%d}\n\n", c.blocks-1)
}

// responsesObject is a Responses API response that stopped at its token
// budget, with its output items when whole.
func responsesObject(c *call, output []any) string {
	r := min(c.sc.Reasoning, c.n)
	usage := map[string]any{"input_tokens": c.prompt, "output_tokens": c.n, "total_tokens": c.prompt + c.n,
		"output_tokens_details": map[string]any{"reasoning_tokens": r}}
	obj := map[string]any{"id": c.id, "object": "response", "model": c.model, "status": "incomplete",
		"incomplete_details": map[string]any{"reason": "max_output_tokens"}, "usage": usage}
	if output != nil {
		obj["output"] = output
	}
	b, _ := json.Marshal(obj)
	return string(b)
}

// llamaFinal is llama.cpp's last event (or whole response): counts, and
// the server's timings, which are the script's.
func llamaFinal(c *call, content string) string {
	prompt := float64(c.sc.TTFT) / 1e6
	predicted := float64(time.Duration(max(c.n-1, 0))*c.sc.Gap) / 1e6
	return fmt.Sprintf(`{"content":%s,"stop":true,"id_slot":0,"tokens_predicted":%d,"tokens_evaluated":%d,"stop_type":"limit","timings":{"prompt_n":%d,"prompt_ms":%g,"predicted_n":%d,"predicted_ms":%g}}`,
		q(content), c.n, c.prompt, c.prompt, prompt, c.n, predicted)
}

// nativeBody holds the request fields of every native API.
type nativeBody struct {
	Model           string  `json:"model"`
	Stream          bool    `json:"stream"`
	MaxOutputTokens int     `json:"max_output_tokens"` // Responses
	MaxTokens       int     `json:"max_tokens"`        // Anthropic's
	NPredict        int     `json:"n_predict"`         // llama.cpp
	Inputs          *string `json:"inputs"`
	Parameters      struct {
		MaxNewTokens int `json:"max_new_tokens"`
	} `json:"parameters"` // TGI
	SamplingParams struct {
		MaxNewTokens int `json:"max_new_tokens"`
	} `json:"sampling_params"` // SGLang
}

// serveNative answers the native APIs: api names the dialect; TGI's and
// SGLang's /generate are told apart by their bodies.
func (s *Handler) serveNative(w http.ResponseWriter, r *http.Request, api string) {
	if api == "anthropic" && r.Header.Get("anthropic-version") == "" {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprint(w, `{"type":"error","error":{"type":"invalid_request_error","message":"anthropic-version: header is required"}}`)
		return
	}
	var body nativeBody
	raw, err := io.ReadAll(io.LimitReader(r.Body, 16<<20))
	if err == nil {
		err = json.Unmarshal(raw, &body)
	}
	if err != nil {
		http.Error(w, `{"error":{"message":"bad json"}}`, http.StatusBadRequest)
		return
	}
	switch api {
	case "generate":
		api = "sglang"
		if body.Inputs != nil {
			api = "tgi"
		}
	case "tgi":
		body.Stream = true // /generate_stream
	}
	d := dialects[api]
	received := time.Now()
	seq, sc, ok := s.next(w)
	if !ok {
		return
	}
	c := &call{id: fmt.Sprintf("cmpl-%d", seq), model: body.Model, sc: sc, prompt: sc.PromptTokens}
	c.n = sc.Tokens
	if c.n == 0 {
		c.n = max(body.MaxOutputTokens, body.MaxTokens, body.NPredict, body.Parameters.MaxNewTokens, body.SamplingParams.MaxNewTokens)
	}
	word := sc.Word
	if word == "" {
		word = "tok"
	}
	log := &Sent{ID: c.id, Received: received, Stream: body.Stream, Request: raw}
	w.Header().Set("X-Request-Id", c.id) // llama.cpp's and TGI's bodies carry none
	if !s.noLog {
		s.mu.Lock()
		s.sent[c.id] = log
		s.mu.Unlock()
	}
	reasoning := 0
	if api == "responses" || api == "anthropic" {
		reasoning = min(sc.Reasoning, c.n)
	}
	if !body.Stream {
		sleepUntil(received.Add(sc.TTFT + time.Duration(max(c.n-1, 0))*sc.Gap))
		s.logEvent(log, c.n, false)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, d.whole(c, strings.Repeat(word, reasoning), strings.Repeat(word, c.n-reasoning)))
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	fl := w.(http.Flusher)
	if d.start != nil {
		fmt.Fprint(w, d.start(c))
		fl.Flush()
	}
	per := max(sc.PerEvent, 1)
	if d.oneToken {
		per = 1
	}
	done := 0
	for ev := 0; done < c.n; ev++ {
		k := min(per, c.n-done)
		thinking := done < reasoning
		if thinking {
			k = min(k, reasoning-done)
		}
		sleepUntil(received.Add(sc.TTFT + time.Duration(ev)*sc.Gap))
		if r.Context().Err() != nil {
			return
		}
		event := d.event(c, strings.Repeat(word, k), thinking, k, done)
		s.logEvent(log, k, thinking)
		fmt.Fprint(w, event)
		fl.Flush()
		done += k
	}
	fmt.Fprint(w, d.end(c))
	fl.Flush()
}
