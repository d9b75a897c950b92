package client

// APIEmbeddings is OpenAI's /v1/embeddings, which vLLM, SGLang, TEI,
// llama.cpp's server and the tpsbench engine serve: a vector for each of
// a batch of inputs, no token generated.
const APIEmbeddings = "embeddings"

var embeddingsAPI = protocol{
	name:        APIEmbeddings,
	help:        "/v1/embeddings: a vector an input, Request.Inputs a request; latency and inputs/s, no TPS",
	path:        "/v1/embeddings",
	endpoints:   []string{"/embeddings"},
	body:        embeddingsBody,
	scanner:     func(*streamState) scanFunc { return scanEmbeddings },
	outputless:  true,
	answers:     "vectors",
	inputs:      inputsOf,
	inputsField: "input",
	streams:     func(string, *bool) bool { return false },
	prompt:      "input",
}

// embeddingsBody asks for a vector of each input, as floats unless
// --extra-body names another encoding_format.
func embeddingsBody(_ *HTTPConfig, req *Request) map[string]any {
	return map[string]any{"model": req.Model, "input": inputsOf(req), "encoding_format": "float"}
}

// inputsOf is what an outputless request asks about: its inputs, or its
// prompt as the one input.
func inputsOf(req *Request) []string {
	if len(req.Inputs) > 0 {
		return req.Inputs
	}
	return []string{promptText(req)}
}

// scanEmbeddings reads an embeddings answer: its vectors (each a list of
// numbers, or base64 with encoding_format base64), counted, not kept, and
// its usage.
func scanEmbeddings(data []byte, ci *chunkInfo) error {
	s, err := objectScanner(data, ci)
	if err != nil {
		return err
	}
	err = s.object(func(key []byte) error {
		switch string(key) {
		case "data":
			if s.peek() != '[' {
				return s.skip()
			}
			return s.array(func() error {
				if s.peek() != '{' {
					return s.skip()
				}
				return s.object(func(k []byte) error {
					if string(k) == "embedding" && (s.peek() == '[' || s.peek() == '"') {
						ci.answers++
					}
					return s.skip()
				})
			})
		case "usage":
			return s.outputlessUsage(ci)
		case "id":
			if s.peek() == '"' {
				return s.strInto(&ci.id)
			}
		case "error":
			if s.peek() == 'n' { // "error": null
				return s.skip()
			}
			ci.hasError = true
			return s.errorValue(ci)
		}
		return s.skip()
	})
	if err != nil {
		return err
	}
	return s.end()
}
