package client

import (
	"bytes"
	"encoding/json"
	"strings"
)

// Proxied is what a proxy passing a request on learns of it.
type Proxied struct {
	API       string // one of APIs
	Stream    bool   // whether it asks for a stream
	Model     string
	MaxTokens int             // its output budget, by whichever name its API gives it
	Prompt    json.RawMessage // its messages or prompt as sent, or nil
	// Inputs are the inputs of a request that generates nothing
	// (embeddings' texts, rerank's documents): its answer holds one
	// answer each
	Inputs int
	// AudioSeconds is the length of a transcription's audio, when it is
	// a WAV
	AudioSeconds float64
}

// ReadProxied tells which API a POST to path speaks, reading what it asks
// for from its JSON body; ok is false when no API's endpoint ends path.
// A body that is not JSON is still the API's request, with nothing read:
// it passes on, measured with what could be read.
func ReadProxied(path string, body []byte) (req Proxied, ok bool) {
	fields := topFields(body)
	path = strings.TrimRight(path, "/")
	p := proxiedAPI(path, fields)
	if p == nil {
		return Proxied{}, false
	}
	req.API = p.name
	if p.transcribes {
		return readProxiedForm(body, req), true
	}
	var stream *bool
	if v, ok := fields["stream"]; ok {
		var b bool
		if json.Unmarshal(v, &b) == nil {
			stream = &b
		}
	}
	if p.streams != nil {
		req.Stream = p.streams(path, stream)
	} else {
		req.Stream = stream != nil && *stream
	}
	_ = json.Unmarshal(fields["model"], &req.Model)
	for _, name := range p.budget {
		var n int
		if json.Unmarshal(fieldAt(fields, name), &n) == nil {
			req.MaxTokens = max(req.MaxTokens, n)
		}
	}
	if v := fieldAt(fields, p.prompt); len(v) > 0 && string(v) != "null" {
		req.Prompt = v
	}
	if p.outputless {
		req.Inputs = countInputs(fields[p.inputsField])
	}
	return req, true
}

// countInputs is how many inputs a field holds: a text, or a list of
// token ids, is one; a list of texts (or of lists of ids) is each.
func countInputs(raw json.RawMessage) int {
	var list []json.RawMessage
	switch {
	case json.Unmarshal(raw, &list) != nil:
		if len(raw) == 0 || string(raw) == "null" {
			return 0
		}
		return 1
	case len(list) > 0 && isNumberByte(bytes.TrimSpace(list[0])[0]):
		return 1 // token ids: one input
	}
	return len(list)
}

// proxiedAPI is the API whose endpoint ends path (the longest ending);
// of two that share it, the first that claims the body.
func proxiedAPI(path string, body map[string]json.RawMessage) *protocol {
	found := endingIn(path, true)
	for _, p := range found {
		if len(found) == 1 || p.claims == nil || p.claims(body) {
			return p
		}
	}
	return nil
}

// fieldAt is the value at a dotted field path in an object, or nil.
func fieldAt(obj map[string]json.RawMessage, path string) json.RawMessage {
	name, rest, nested := strings.Cut(path, ".")
	v := obj[name]
	if !nested || v == nil {
		return v
	}
	return fieldAt(topFields(v), rest)
}

// topFields is an object's fields, each value the JSON as it is in data
// (not copied: a prompt of megabytes stays where it is), or nil when data
// is not an object. What precedes a syntax error is kept.
func topFields(data []byte) map[string]json.RawMessage {
	s := scanner{b: data}
	s.ws()
	if s.peek() != '{' {
		return nil
	}
	fields := map[string]json.RawMessage{}
	_ = s.object(func(key []byte) error {
		start := s.pos
		err := s.skip()
		if err == nil {
			fields[string(key)] = data[start:s.pos]
		}
		return err
	})
	return fields
}

// Measured reports whether a POST to path is a request of an API's, which
// a proxy measures (its body then says which API, when two share the
// path).
func Measured(path string) bool {
	return len(endingIn(strings.TrimRight(path, "/"), true)) > 0
}
