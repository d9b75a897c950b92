package metrics

import "github.com/tpsbench/tpsbench/record"

// Reasoning holds a step's figures for reasoning models (docs/metrics.md,
// "Reasoning and tool calls"): what part of the output was reasoning,
// when the reasoning and the answer began, and how fast each came.
type Reasoning struct {
	Requests         int     `json:"requests"`           // completed requests with reasoning tokens
	ToolCallRequests int     `json:"tool_call_requests"` // completed requests with tool-call tokens
	ReasoningTokens  int64   `json:"reasoning_tokens"`
	AnswerTokens     int64   `json:"answer_tokens"` // output that was not reasoning, tool calls included
	ToolCallTokens   int64   `json:"tool_call_tokens"`
	AnswerSystemTPS  float64 `json:"answer_system_tps"` // answer tokens over the step's window

	TTFR         Dist `json:"ttfr_ms"`       // time to the first reasoning token
	TTFA         Dist `json:"ttfa_ms"`       // time to the first answer token
	ReasoningTPS Dist `json:"reasoning_tps"` // per request, (reasoning tokens - 1) over their span
	AnswerTPS    Dist `json:"answer_tps"`    // per request, (answer tokens - 1) over their span
}

// reasoningAcc accumulates a step's Reasoning.
type reasoningAcc struct {
	requests, toolRequests  int
	reasoning, answer, tool int64
	ttfr, ttfa              *histogram
	reasonTPS, answerTPS    *histogram
}

func newReasoningAcc() reasoningAcc {
	return reasoningAcc{ttfr: newLatency(), ttfa: newLatency(), reasonTPS: newRate(), answerTPS: newRate()}
}

// add counts a completed record.
func (a *reasoningAcc) add(r *record.Record) {
	if r.ReasoningTokens > 0 {
		a.requests++
	}
	if r.ToolCallTokens > 0 {
		a.toolRequests++
	}
	a.reasoning += int64(r.ReasoningTokens)
	a.answer += int64(r.AnswerTokens())
	a.tool += int64(r.ToolCallTokens)
	if d, ok := r.TTFR(); ok {
		a.ttfr.add(float64(d))
	}
	if d, ok := r.TTFA(); ok {
		a.ttfa.add(float64(d))
	}
	if v, ok := r.ReasoningTPS(); ok {
		a.reasonTPS.add(v)
	}
	if v, ok := r.AnswerTPS(); ok {
		a.answerTPS.add(v)
	}
}

// summary is the step's Reasoning over a window of seconds, or nil when
// no request reasoned or called a tool (the figures would repeat TTFT and
// decode TPS).
func (a *reasoningAcc) summary(window float64) *Reasoning {
	if a.requests == 0 && a.toolRequests == 0 {
		return nil
	}
	out := &Reasoning{
		Requests: a.requests, ToolCallRequests: a.toolRequests,
		ReasoningTokens: a.reasoning, AnswerTokens: a.answer, ToolCallTokens: a.tool,
		TTFR: a.ttfr.summary(1e6), TTFA: a.ttfa.summary(1e6),
		ReasoningTPS: a.reasonTPS.summary(1), AnswerTPS: a.answerTPS.summary(1),
	}
	if window > 0 {
		out.AnswerSystemTPS = float64(a.answer) / window
	}
	return out
}
