package otlp

import (
	"crypto/rand"
	"encoding/hex"
	"net/url"

	"github.com/tpsbench/tpsbench/client"
	"github.com/tpsbench/tpsbench/record"
)

// operation is the GenAI conventions' gen_ai.operation.name of a
// record's API: chat for the chat-shaped APIs, text_completion for the
// prompt-shaped ones, embeddings; rerank and transcription, which the
// conventions do not name, by the API's own name.
func operation(api string) string {
	switch api {
	case client.APIChat, client.APIAnthropic, client.APIResponses, client.APIOllama:
		return "chat"
	case client.APICompletions, client.APILlamaCpp, client.APITGI, client.APISGLang:
		return "text_completion"
	case "":
		return "chat"
	}
	return api
}

// spanOf is a finished request as a client span of the GenAI conventions:
// from the request's start (its connection asked for) to its end, with
// its first and last token as events, its HTTP phases and figures as
// attributes, and its failure as the span's status.
func spanOf(r *record.Record) span {
	op := operation(r.API)
	start := r.Sent - r.Upload
	if p := r.HTTP; p != nil {
		start -= p.Blocked + p.DNS + p.Connecting + p.TLS
	}
	s := span{
		TraceID: randomHex(16), SpanID: randomHex(8),
		Name: op + " " + r.Model, Kind: spanKindClient,
		Start: nanos(r.Abs(start)), End: nanos(r.Abs(max(r.Done, start))),
		Status: status{Code: statusCodeOK},
	}
	a := []keyValue{
		str("gen_ai.operation.name", op),
		str("gen_ai.request.model", r.Model),
		num("gen_ai.usage.input_tokens", int64(r.PromptTokens)),
		num("gen_ai.usage.output_tokens", int64(r.OutputTokens)),
		str("tpsbench.api", r.API),
		flag("tpsbench.stream", r.Stream),
	}
	if r.MaxTokens > 0 {
		a = append(a, num("gen_ai.request.max_tokens", int64(r.MaxTokens)))
	}
	if r.ResponseID != "" {
		a = append(a, str("gen_ai.response.id", r.ResponseID))
	}
	if r.FinishReason != "" {
		a = append(a, strs("gen_ai.response.finish_reasons", r.FinishReason))
	}
	if u, err := url.Parse(r.URL); err == nil && u.Host != "" {
		a = append(a, str("server.address", u.Hostname()), str("url.full", r.URL))
	}
	if r.Step != "" {
		a = append(a, str("tpsbench.step", r.Step))
	}
	if r.Run != "" {
		a = append(a, str("tpsbench.run", r.Run))
	}
	if r.Status != 0 {
		a = append(a, num("http.response.status_code", int64(r.Status)))
	}
	if r.OutputTokens > 0 && r.First >= r.Sent {
		a = append(a, num("tpsbench.ttft_ns", int64(r.TTFT())))
		s.Events = append(s.Events, event{Time: nanos(r.Abs(r.First)), Name: "gen_ai.first_token"},
			event{Time: nanos(r.Abs(r.Last)), Name: "gen_ai.last_token"})
	}
	if tpot, ok := r.TPOT(); ok {
		a = append(a, num("tpsbench.tpot_ns", int64(tpot)))
	}
	if times, ok := r.HTTPPhaseTimes(); ok {
		a = append(a, flag("tpsbench.http.connection_reused", r.HTTP.Reused))
		for i, name := range record.HTTPPhaseNames {
			a = append(a, num("tpsbench.http."+name+"_ns", times[i]))
		}
	}
	if e := r.Error; e != nil {
		a = append(a, str("error.type", e.Kind))
		s.Status = status{Code: statusCodeError, Message: e.Message}
	}
	s.Attributes = a
	return s
}

// randomHex is n random bytes in hex: a trace or span id.
func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // crypto/rand's Read never fails
	return hex.EncodeToString(b)
}
