package client

// APIRerank is the rerank API vLLM, SGLang, TEI and llama.cpp's server
// serve at /v1/rerank (Jina's and Cohere's form): a query and documents,
// a relevance score for each document, no token generated.
const APIRerank = "rerank"

var rerankAPI = protocol{
	name:        APIRerank,
	help:        "/v1/rerank: a query and Request.Inputs documents, a score a document; latency and documents/s, no TPS",
	path:        "/v1/rerank",
	endpoints:   []string{"/rerank"},
	body:        rerankBody,
	scanner:     func(*streamState) scanFunc { return scanRerank },
	outputless:  true,
	answers:     "scores",
	inputs:      rerankDocuments,
	inputsField: "documents",
	streams:     func(string, *bool) bool { return false },
	prompt:      "query",
}

// rerankBody asks for every document's score (rerankParts).
func rerankBody(_ *HTTPConfig, req *Request) map[string]any {
	query, docs := rerankParts(req)
	return map[string]any{"model": req.Model, "query": query, "documents": docs}
}

// rerankParts are a rerank request's query and documents: the first of
// its inputs and the others, or, with one input or none, its prompt as
// both (a document scored against itself).
func rerankParts(req *Request) (query string, docs []string) {
	if len(req.Inputs) > 1 {
		return req.Inputs[0], req.Inputs[1:]
	}
	text := promptText(req)
	if len(req.Inputs) == 1 {
		text = req.Inputs[0]
	}
	return text, []string{text}
}

func rerankDocuments(req *Request) []string { _, docs := rerankParts(req); return docs }

// scanRerank reads a rerank answer: its results (each a document's
// relevance_score), counted, and its usage; vLLM's /score answer (a
// data list of scores) reads the same.
var scanRerank = answersScanner([]string{"results", "data"}, func(key []byte, value byte) bool {
	k := string(key)
	return (k == "relevance_score" || k == "score") && isNumberByte(value)
})
