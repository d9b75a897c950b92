package metrics

import "github.com/tpsbench/tpsbench/record"

// endedEarly tells whether a request is known to have ended before its
// max_tokens: by a finish reason other than the length limit, or, without
// one, by the server's own count. A count of chunks (one a chunk, whatever
// each held; one for a whole non-streamed response) or a client
// tokenizer's proves nothing, and once claimed early ends not seen.
func endedEarly(r *record.Record) bool {
	if r.FinishReason != "" {
		return r.FinishReason != "length" && r.OutputTokens < r.MaxTokens
	}
	return r.TokenSource == record.SourceUsage && r.OutputTokens < r.MaxTokens
}
