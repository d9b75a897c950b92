package scripted

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// serveRerank answers the rerank API (/v1/rerank, as vLLM serves it): a
// relevance score a document, after the script's TTFT, charging for each
// document its words and the query's (a cross-encoder reads them as one
// pair) unless the script names the prompt tokens. The log's one event is
// when the answer was written; Tokens holds the documents' count.
func (s *Handler) serveRerank(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Model     string   `json:"model"`
		Query     string   `json:"query"`
		Documents []string `json:"documents"`
	}
	raw, err := io.ReadAll(io.LimitReader(r.Body, 16<<20))
	if err == nil {
		err = json.Unmarshal(raw, &body)
	}
	if err != nil || body.Query == "" || len(body.Documents) == 0 {
		http.Error(w, `{"error":{"message":"want a query and documents"}}`, http.StatusBadRequest)
		return
	}
	received := time.Now()
	seq, sc, ok := s.next(w)
	if !ok {
		return
	}
	id := fmt.Sprintf("rerank-%d", seq)
	tokens := sc.PromptTokens
	if tokens == 0 {
		q := max(1, len(strings.Fields(body.Query)))
		for _, d := range body.Documents {
			tokens += q + max(1, len(strings.Fields(d)))
		}
	}
	results := make([]map[string]any, len(body.Documents))
	for i, d := range body.Documents {
		results[i] = map[string]any{"index": i, "document": map[string]string{"text": d}, "relevance_score": 1 / float64(i+1)}
	}
	out, _ := json.Marshal(map[string]any{"id": id, "model": body.Model, "results": results, "usage": map[string]int{"total_tokens": tokens}})
	log := &Sent{ID: id, Received: received, Request: raw, Tokens: []int{len(body.Documents)}}
	sleepUntil(received.Add(sc.TTFT))
	w.Header().Set("Content-Type", "application/json")
	log.Events = []time.Time{time.Now()}
	if !s.noLog {
		s.mu.Lock()
		s.sent[id] = log
		s.mu.Unlock()
	}
	w.Write(out)
}
