package client

import (
	"encoding/json"
	"net/http"
	"strings"
)

// protocol is one server API, everything tpsbench knows of it: how the
// client calls it and reads its answers, where a server lists its models
// and counts tokens, how --api auto finds a server that speaks only it,
// and how the measuring proxy recognises its requests. Each lives in its
// own file (api_*.go); adding an API is that file and a line in
// protocols.
type protocol struct {
	name string
	// help says, in a flag's help, where it is served and what it adds
	help string
	// path is its endpoint below a server's root; wholePath, when set, is
	// where it answers unstreamed requests (TGI's /generate).
	path, wholePath string
	// endpoints are the path endings that name it in a full endpoint URL
	// or a request the proxy passes on; proxied are more the proxy
	// measures but the client never calls (Ollama's /api/generate).
	endpoints, proxied []string
	// body is the request body for req, before HTTPConfig.Extra's fields.
	body func(cfg *HTTPConfig, req *Request) map[string]any
	// scanner reads one event of its stream, or a whole response, keeping
	// what spans events (a server's timings, a cumulative text) in st.
	scanner func(st *streamState) scanFunc
	// ndjson: its stream is one JSON object a line (Ollama's), and so is
	// its unstreamed answer.
	ndjson bool
	// chat: its requests carry chat messages, which a server templates
	// (a /tokenize count asks for the same).
	chat bool
	// media says whether its requests carry media as content parts
	// (Request.Media); transcribes, that a request is one audio sent as
	// a multipart form's file (the body's fields the form's others)
	media, transcribes bool
	// outputless: it answers without generating tokens (embeddings,
	// rerank); a request records its inputs, and completes with one of
	// answers (vectors, scores) for each
	outputless bool
	answers    string
	inputs     func(req *Request) []string // what it answers one of answers for
	// inputsField is the body's field of those inputs, for the proxy
	inputsField string
	// modelLists are where it lists models below a server's root, in the
	// order tried; none means OpenAI's /v1/models.
	modelLists []string
	// tokenizeField is the field its server's /tokenize takes the text in,
	// when not OpenAI's (prompt, or messages for a chat API).
	tokenizeField string
	// probe, when set, is how --api auto recognises a server that speaks
	// it, asked in the order of protocols.
	probe *probe
	// streams says whether a request (its "stream" field, nil when absent)
	// to path asks for a stream; nil: when the field says true.
	streams func(path string, stream *bool) bool
	// claims, for a path another API shares (SGLang's and TGI's
	// /generate), tells whether a request body is this API's; nil: any.
	claims func(body map[string]json.RawMessage) bool
	// authorize sets the API's own headers and its credential, key when
	// set; nil: an OpenAI-style bearer token.
	authorize func(h http.Header, key string)
	// budget and prompt name the request's fields that hold its output
	// budget and its prompt (a dot for a field within a field).
	budget []string
	prompt string
}

// scanFunc reads one event (or a whole response) into ci.
type scanFunc func(data []byte, ci *chunkInfo) error

// probe is a route a server answers, a field of its JSON answer, and why
// that tells the API.
type probe struct {
	path, field, why string
}

// protocols lists every API a client speaks, in the order help texts name
// them and --api auto probes for them.
var protocols = []*protocol{
	&chatAPI, &completionsAPI, &responsesAPI, &ollamaAPI, &llamaCppAPI, &tgiAPI, &sglangAPI, &anthropicAPI, &embeddingsAPI, &rerankAPI, &transcriptionAPI,
}

// setAuth sets p's headers and credential on h (a bearer token for an
// API that names no way of its own, or for no API: nil p).
func (p *protocol) setAuth(h http.Header, key string) {
	switch {
	case p != nil && p.authorize != nil:
		p.authorize(h, key)
	case key != "":
		h.Set("Authorization", "Bearer "+key)
	}
}

// APIAuto asks the server which API it speaks (Detect).
const APIAuto = "auto"

// APIs lists every API a client speaks, for help texts and errors.
var APIs = func() []string {
	names := make([]string, len(protocols))
	for i, p := range protocols {
		names[i] = p.name
	}
	return names
}()

// setSampling puts the budget (under the API's name for it), ignore_eos,
// the temperature and the other sampling parameters (renamed by rename)
// into fields, as most APIs take them.
func setSampling(fields map[string]any, cfg *HTTPConfig, req *Request, budget string, rename map[string]string) {
	putSampling(fields, cfg.Sampling, rename)
	if req.MaxTokens > 0 {
		fields[budget] = req.MaxTokens
	}
	if cfg.IgnoreEOS {
		fields["ignore_eos"] = true
	}
	if cfg.Temperature != nil {
		fields["temperature"] = *cfg.Temperature
	}
}

// APIHelp names every API with where it is served, for a flag's help.
func APIHelp() string {
	parts := make([]string, len(protocols))
	for i, p := range protocols {
		parts[i] = p.name + " (" + p.help + ")"
	}
	return strings.Join(parts, ", ")
}

// protocolOf is the API named name, or nil.
func protocolOf(name string) *protocol {
	for _, p := range protocols {
		if p.name == name {
			return p
		}
	}
	return nil
}

// apiOfPath tells the API from a full endpoint URL's path, or "" when no
// API's endpoint ends it or two APIs share its ending (/generate).
func apiOfPath(path string) string {
	if found := endingIn(path, false); len(found) == 1 {
		return found[0].name
	}
	return ""
}

// endingIn is the APIs whose endpoint ends path, with the longest such
// ending: /v1/chat/completions is chat's, not completions'. proxied adds
// the endpoints only the proxy measures.
func endingIn(path string, proxied bool) []*protocol {
	var found []*protocol
	longest := 0
	for _, p := range protocols {
		ends := append(p.endpoints[:len(p.endpoints):len(p.endpoints)], p.wholePath)
		if proxied {
			ends = append(ends, p.proxied...)
		}
		n := 0 // p's longest ending of path
		for _, end := range ends {
			if end != "" && strings.HasSuffix(path, end) {
				n = max(n, len(end))
			}
		}
		switch {
		case n == 0 || n < longest:
		case n > longest:
			found, longest = []*protocol{p}, n
		default:
			found = append(found, p)
		}
	}
	return found
}
