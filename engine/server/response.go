package server

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/tpsbench/tpsbench/engine/sched"
	"github.com/tpsbench/tpsbench/engine/tokenizer"
)

// response writes one generation, streamed or whole.
type response struct {
	w            http.ResponseWriter
	chat, stream bool
	usage        bool
	id, model    string
	created      int64
	prompt, made int
	cached       int // the prompt's tokens the prefix cache held
	stops        []string
	tok          *tokenizer.Tokenizer
	// logprobs: each token's entry waits in lps until a chunk carries it
	logprobs bool
	lps      []tokenLogprob
	all      []tokenLogprob // every entry, for a whole response
	offset   int            // bytes of the tokens so far

	reasoning int             // the first tokens that are reasoning (Server.Reasoning)
	reasoned  strings.Builder // their text
	thinking  thinkState      // where the answer is against its think tags (Server.ThinkTags)
	thinkHeld string          // text held back: it may be the start of a tag
	thought   int             // tokens made inside the think tags
	text      strings.Builder // the answer generated (whole responses, stop matching)
	pending   []byte          // bytes of an unfinished UTF-8 character
	held      string          // text held back because it may start a stop string
	sent      int             // tokens already reported in chunks
	ended     bool
	head, buf []byte // textChunk's: every chunk's bytes before its text, and the chunk
}

func (o *response) begin() {
	if !o.stream {
		return
	}
	o.w.Header().Set("Content-Type", "text/event-stream")
	o.w.Header().Set("Cache-Control", "no-cache")
	o.w.WriteHeader(http.StatusOK)
	if o.chat {
		o.chunk(map[string]any{"role": "assistant", "content": ""}, nil)
	}
}

// token adds a generated token; it reports whether a stop string matched.
func (o *response) token(t int, lp *sched.Logprob) bool {
	o.made++
	if o.logprobs && lp != nil {
		e := newTokenLogprob(o.tok, t, o.offset, lp)
		o.lps, o.all = append(o.lps, e), append(o.all, e)
		o.offset += len(e.text)
	}
	o.pending = append(o.pending, o.tok.Piece(t)...)
	// Hold back an incomplete UTF-8 character until its last byte comes.
	cut := len(o.pending)
	for i := max(0, len(o.pending)-3); i < len(o.pending); i++ {
		if o.pending[i]&0xC0 == 0xC0 && !utf8.FullRune(o.pending[i:]) {
			cut = i
			break
		}
	}
	text := string(o.pending[:cut])
	o.pending = append(o.pending[:0], o.pending[cut:]...)
	if o.made <= o.reasoning {
		o.think(text) // stop strings end answers, not reasoning
		return false
	}
	if o.thinking != thinkDone {
		o.thought++ // the token that closes the tags is reasoning too
		if text = o.splitThink(text); text == "" {
			return false
		}
	}
	piece := o.held + text
	o.held = ""
	for _, st := range o.stops {
		whole := o.text.String() + piece
		if i := strings.Index(whole, st); i >= 0 {
			piece = whole[o.text.Len():max(i, o.text.Len())]
			o.emit(piece)
			return true
		}
	}
	// Keep back a tail that could be the start of a stop string.
	for _, st := range o.stops {
		for k := min(len(st)-1, len(piece)); k > 0; k-- {
			if strings.HasSuffix(piece, st[:k]) {
				if len(o.held) < k {
					o.held = piece[len(piece)-k:]
				}
				break
			}
		}
	}
	o.emit(piece[:len(piece)-len(o.held)])
	return false
}

func (o *response) emit(piece string) {
	o.text.WriteString(piece)
	if o.stream && piece != "" {
		if o.chat {
			o.textChunk("content", piece)
		} else {
			o.textChunk("text", piece)
		}
		o.sent = o.made
	}
}

func (o *response) delta(text string) map[string]any {
	if o.chat {
		return map[string]any{"content": text}
	}
	return map[string]any{"text": text}
}

func (o *response) usageJSON() map[string]any {
	u := map[string]any{"prompt_tokens": o.prompt, "completion_tokens": o.made, "total_tokens": o.prompt + o.made}
	if o.cached > 0 { // as vLLM reports the prefix cache's share of the prompt
		u["prompt_tokens_details"] = map[string]any{"cached_tokens": o.cached}
	}
	if o.reasoning > 0 {
		u["completion_tokens_details"] = map[string]any{"reasoning_tokens": min(o.made, o.reasoning)}
	} else if o.thought > 0 {
		u["completion_tokens_details"] = map[string]any{"reasoning_tokens": o.thought}
	}
	return u
}

func (o *response) chunk(delta map[string]any, finish any) {
	choice := map[string]any{"index": 0, "finish_reason": finish}
	if o.logprobs {
		// the entries of the tokens whose text this chunk carries (or
		// held back before it)
		choice["logprobs"] = logprobsJSON(o.chat, o.lps)
		o.lps = o.lps[:0]
	}
	obj := "text_completion"
	if o.chat {
		choice["delta"] = delta
		obj = "chat.completion.chunk"
	} else {
		choice["text"] = delta["text"]
		if delta["text"] == nil {
			choice["text"] = ""
		}
	}
	o.event(map[string]any{"id": o.id, "object": obj, "created": o.created, "model": o.model, "choices": []any{choice}})
}

// textChunk writes a chunk whose only news is text in one field: the
// delta's content or reasoning_content, or a completion's text, as all
// but a stream's first and last chunks are. Without logprobs it is built
// from bytes made once for the response: three maps a token for
// encoding/json to sort and encode, then fmt, had the handler take 37 us
// of CPU a token at 32 streams (17 since), CPU a two-core machine takes
// from the step. With logprobs, chunk builds it.
func (o *response) textChunk(field, text string) {
	if o.logprobs || (!o.chat && field != "text") {
		if field == "text" {
			o.chunk(o.delta(text), nil)
		} else {
			o.chunk(map[string]any{field: text}, nil)
		}
		return
	}
	if o.head == nil {
		id, _ := json.Marshal(o.id)
		model, _ := json.Marshal(o.model)
		obj := `"text_completion"`
		if o.chat {
			obj = `"chat.completion.chunk"`
		}
		o.head = fmt.Appendf(nil, `data: {"id":%s,"object":%s,"created":%d,"model":%s,"choices":[{"index":0,`, id, obj, o.created, model)
	}
	quoted, _ := json.Marshal(text) // the same escaping as chunk's
	b := append(o.buf[:0], o.head...)
	if o.chat {
		b = append(b, `"delta":{"`...)
		b = append(b, field...)
		b = append(b, `":`...)
		b = append(b, quoted...)
		b = append(b, `},"finish_reason":null}]}`...)
	} else {
		b = append(b, `"text":`...)
		b = append(b, quoted...)
		b = append(b, `,"finish_reason":null}]}`...)
	}
	b = append(b, "\n\n"...)
	_, _ = o.w.Write(b)
	o.flush()
	o.buf = b
}

// flush sends what the chunks written so far hold on to the client.
func (o *response) flush() {
	if f, ok := o.w.(http.Flusher); ok {
		f.Flush()
	}
}

func (o *response) event(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		// never an event that is not JSON: the stream says what failed
		b, _ = json.Marshal(map[string]any{"error": map[string]any{"message": "encoding an event: " + err.Error(), "type": "server_error", "code": 500}})
	}
	fmt.Fprintf(o.w, "data: %s\n\n", b)
	o.flush()
}

func (o *response) end(reason string) {
	if o.ended {
		return
	}
	o.ended = true
	if o.thinkHeld != "" { // a tag that never finished: reasoning after all
		o.think(o.thinkHeld)
		o.thinkHeld = ""
	}
	if reason != "stop" || o.held != "" {
		// what was held back for a stop string that never came, and any
		// unfinished character, is text after all
		tail := o.held + strings.ToValidUTF8(string(o.pending), "\uFFFD")
		o.held, o.pending = "", nil
		if tail != "" {
			o.emit(tail)
		}
	}
	if reason == "" {
		reason = "length"
	}
	if !o.stream {
		o.whole(reason)
		return
	}
	o.chunk(o.delta(""), reason)
	if o.usage {
		obj := "text_completion" // the OpenAI SDK's completions stream types every chunk so
		if o.chat {
			obj = "chat.completion.chunk"
		}
		o.event(map[string]any{"id": o.id, "object": obj, "created": o.created, "model": o.model, "choices": []any{}, "usage": o.usageJSON()})
	}
	fmt.Fprint(o.w, "data: [DONE]\n\n")
	o.flush()
}

func (o *response) whole(reason string) {
	choice := map[string]any{"index": 0, "finish_reason": reason}
	obj := "text_completion"
	if o.chat {
		msg := map[string]any{"role": "assistant", "content": o.text.String()}
		if o.reasoning > 0 || o.thought > 0 {
			msg["reasoning_content"] = o.reasoned.String()
		}
		choice["message"] = msg
		obj = "chat.completion"
	} else {
		choice["text"] = o.text.String()
	}
	if o.logprobs {
		choice["logprobs"] = logprobsJSON(o.chat, o.all)
	}
	b, err := json.Marshal(map[string]any{"id": o.id, "object": obj, "created": o.created, "model": o.model,
		"choices": []any{choice}, "usage": o.usageJSON()})
	if err != nil {
		// never a 200 whose body is not the answer
		apiError(o.w, http.StatusInternalServerError, "server_error", "", "encoding the answer: "+err.Error())
		return
	}
	o.w.Header().Set("Content-Type", "application/json")
	_, _ = o.w.Write(append(b, '\n'))
}

func (o *response) fail(err error) {
	o.ended = true
	if o.stream {
		o.event(map[string]any{"error": map[string]any{"message": err.Error(), "type": "server_error", "code": 500}})
		return
	}
	apiError(o.w, http.StatusInternalServerError, "server_error", "", err.Error())
}
