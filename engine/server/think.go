package server

import "strings"

// thinkState is where an answer is against its think tags.
type thinkState uint8

const (
	thinkDone    thinkState = iota // no tags, or past </think>: the answer
	thinkOpening                   // before anything: an opening <think> may come
	thinkInside                    // inside the tags: reasoning
)

const (
	thinkOpen  = "<think>"
	thinkClose = "</think>"
)

// splitThink takes text made inside (or before) the think tags: it sends
// the reasoning on, holds back what may be the start of a tag, and
// returns the answer's text once </think> has passed.
func (o *response) splitThink(text string) string {
	buf := o.thinkHeld + text
	o.thinkHeld = ""
	if o.thinking == thinkOpening {
		lead := strings.TrimLeft(buf, " \t\r\n")
		switch {
		case strings.HasPrefix(lead, thinkOpen):
			buf = lead[len(thinkOpen):] // the model opened the tags itself (Qwen3)
		case strings.HasPrefix(thinkOpen, lead):
			o.thinkHeld = buf // "<thi": wait for the rest
			return ""
		}
		o.thinking = thinkInside
	}
	if i := strings.Index(buf, thinkClose); i >= 0 {
		o.think(buf[:i])
		o.thinking = thinkDone
		return buf[i+len(thinkClose):]
	}
	for k := min(len(thinkClose)-1, len(buf)); k > 0; k-- {
		if strings.HasSuffix(buf, thinkClose[:k]) {
			o.thinkHeld = buf[len(buf)-k:]
			buf = buf[:len(buf)-k]
			break
		}
	}
	o.think(buf)
	return ""
}

// think adds reasoning text.
func (o *response) think(text string) {
	o.reasoned.WriteString(text)
	if o.stream && text != "" {
		o.textChunk("reasoning_content", text)
		o.sent = o.made
	}
}
