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
var scanEmbeddings = answersScanner([]string{"data"}, func(key []byte, value byte) bool {
	return string(key) == "embedding" && (value == '[' || value == '"')
})
