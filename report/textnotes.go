package report

import (
	"fmt"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/tpsbench/tpsbench/metrics"
	"github.com/tpsbench/tpsbench/record"
	"github.com/tpsbench/tpsbench/servermetrics"
)

// batchedWorthNoting is the share of chunks read with the one before
// that a report notes.
const batchedWorthNoting = 0.05

// lateBatchesWorthWarning is the share of chunks read together while the
// client was late starting requests past which the client's own batching
// shapes ITL: one in 2,000.
const lateBatchesWorthWarning = 0.0005

// failureReasons lists why requests failed: each reason's count and
// the first message of it, so that a failed run says why without its
// records.
func failureReasons(ew *errWriter, s *metrics.Summary) {
	for _, r := range s.Requests.Reasons {
		ew.printf("  %d %s: %s\n", r.Count, r.Kind, r.Example)
	}
	if n := s.Requests.OtherReasons; n > 0 {
		ew.printf("  %d for other reasons (the records hold each)\n", n)
	}
}

// notes lists failures, token count sources and client lag worth knowing.
func notes(ew *errWriter, s *metrics.Summary, named bool) {
	prefix := ""
	if named {
		prefix = s.Label + ": "
	}
	failureNote(ew, prefix, s)
	if s.RampUp > 0 || s.CoolDown > 0 {
		ew.printf("%sRamp-up and cool-down: %s started while the load rose and %s as it fell away, counted apart: the figures are the steady part's\n",
			prefix, requests(s.RampUp), requests(s.CoolDown))
	}
	if n := s.Requests.Cancelled; n > 0 {
		ew.printf("%sCancelled as planned: %s, left mid-answer as users do (--request-cancellation-rate); neither completed nor failed, and out of every figure\n", prefix, requests(n))
	}
	tokenSourceNote(ew, prefix, s, named)
	if s.Reasoning != nil && named {
		reasoningLine(ew, prefix, s)
	}
	if g := s.Replay; g != nil {
		replayLine(ew, prefix, g)
	}
	if v := s.Sessions; v != nil {
		sessionsLine(ew, prefix, v)
	}
	if a := s.Accuracy; a != nil {
		accuracyLine(ew, prefix, a)
	}
	for _, part := range []struct {
		what  string
		parts []metrics.PartFigures
	}{{"Model", s.Models}, {"Server", s.URLs}} {
		for _, m := range part.parts {
			ew.printf("%s%s %s: %d completed, %d failed, %d tokens; TTFT p50 %s, TPOT p50 %s, request TPS mean %.2f tokens/s\n",
				prefix, part.what, m.Name, m.Completed, m.Failed, m.OutputTokens, dms(m.TTFT, m.TTFT.P50), dms(m.TPOT, m.TPOT.P50), m.RequestTPS.Mean)
		}
	}
	if s.Chunks > 0 && float64(s.BatchedChunks) >= batchedWorthNoting*float64(s.Chunks) {
		// a few chunks read together is the machine's scheduling; many
		// is a server or network that batches, and shapes ITL
		ew.printf("%sArrivals: %.1f%% of chunks came in one read with the chunk before (one arrival; their tokens share its gap in ITL)\n",
			prefix, 100*float64(s.BatchedChunks)/float64(s.Chunks))
	}
	if s.Chunks > 0 && float64(s.BatchedWhileLate) >= lateBatchesWorthWarning*float64(s.Chunks) {
		ew.printf("%sWarning: %.2f%% of chunks (%d) were read together with the chunk before while the client was late starting requests (one past due by over 1 ms): the client batched them, not the server, and their ITLs are its own; fewer streams a process (--shard) reads them apart\n",
			prefix, 100*float64(s.BatchedWhileLate)/float64(s.Chunks), s.BatchedWhileLate)
	}
	if s.Retried > 0 {
		ew.printf("%sConnections: %s went out again on a fresh connection, the server having closed a kept-alive one before answering (retries in the records; not failures)\n", prefix, requests(s.Retried))
	}
	if s.UsageSuspect > 0 {
		ew.printf("%sUsage not believed for %s: the server claimed far more tokens than it streamed, or a cumulative count fell; counted from the stream instead (usage_suspect in the records)\n", prefix, requests(s.UsageSuspect))
	}
	if v := s.Server; v != nil {
		serverViewLine(ew, prefix, s, v)
	}
	if e := s.Energy; e != nil {
		if e.Unavailable != "" {
			ew.printf("%sEnergy: not measured from %s: %s\n", prefix, e.Source, e.Unavailable)
		} else {
			ew.printf("%sEnergy: %.2f J from %s; %.4g J a token, %.4g tokens a joule\n", prefix, e.Joules, e.Source, e.JoulesPerToken, e.TokensPerJoule)
		}
	}
	mediaLines(ew, prefix, s)
	if c := s.Cost; c != nil {
		ew.printf("%sCost at $%.2f an hour: $%.4g a million output tokens", prefix, c.PerHour, c.PerMillionOutput)
		if c.PerMillionInput > 0 {
			ew.printf(", $%.4g a million input tokens", c.PerMillionInput)
		}
		ew.printf(" (at this step's rates)\n")
	}
	if s.CachedTokens > 0 {
		ew.printf("%sPrompt cache: %d of %d prompt tokens (%.1f%%) were in the server's cache, their prefill skipped (usage's cached_tokens)\n",
			prefix, s.CachedTokens, s.InputTokens, 100*s.CachedShare)
	}
	if s.ShortOutputs > 0 {
		ew.printf("%sOutput lengths: %d of %s ended before their max_tokens (send --ignore-eos if the server honours it)\n", prefix, s.ShortOutputs, requests(s.Requests.Completed))
	}
	if s.LongOutputs > 0 {
		ew.printf("%sOutput lengths: %d of %s made more tokens than their max_tokens: the server did not hold to it, so the outputs are longer than asked\n", prefix, s.LongOutputs, requests(s.Requests.Completed))
	}
	// Lag matters when it is large against the requests themselves.
	if s.ClientLag.P99 > 10 && s.ClientLag.P99 > 0.05*s.E2E.P50 {
		ew.printf("%sWarning: the client started requests late (lag p99 %s): the client, not the server, may be the limit\n", prefix, ms(s.ClientLag.P99))
	}
}

// failureNote counts the failures by kind, then by reason.
func failureNote(ew *errWriter, prefix string, s *metrics.Summary) {
	if s.Requests.Failed > 0 {
		var kinds []string
		for k, n := range s.Requests.Failures {
			kinds = append(kinds, fmt.Sprintf("%s %d", k, n))
		}
		sort.Strings(kinds)
		ew.printf("%sFailures (kept out of latency and TPS figures): %s\n", prefix, strings.Join(kinds, ", "))
		failureReasons(ew, s)
	}
}

// tokenSourceNote says where the token counts came from, when that is
// worth saying: always for one step, for a step of many only when not
// all from usage.
func tokenSourceNote(ew *errWriter, prefix string, s *metrics.Summary, named bool) {
	onlyUsage := len(s.TokenSources) == 1 && s.TokenSources[record.SourceUsage] > 0 && s.TokenMismatch == 0
	if len(s.TokenSources) > 0 && !(named && onlyUsage) {
		var src []string
		for k, n := range s.TokenSources {
			src = append(src, fmt.Sprintf("%s %d", k, n))
		}
		sort.Strings(src)
		ew.printf("%sToken counts from: %s", prefix, strings.Join(src, ", "))
		if s.TokenMismatch > 0 {
			ew.printf(" (in %s usage and the chunk count differ: a chunk may carry several tokens)", requests(s.TokenMismatch))
		}
		switch {
		case s.TokenizerShort > 0:
			ew.printf(" (in %s the tokenizer counted fewer tokens than chunks carried them, each at least one: the chunks' count was used; another model's tokenizer?)", requests(s.TokenizerShort))
		case s.TokenSources[record.SourceChunks] > 0:
			ew.printf(" (a chunk is not a token: servers may send several tokens, or part of one, a chunk; --tokenizer counts the text instead)")
		}
		ew.printf("\n")
	}
}

// reasoningLine sums up the step's reasoning, in a table of many steps.
func reasoningLine(ew *errWriter, prefix string, s *metrics.Summary) {
	g := s.Reasoning
	ew.printf("%sReasoning: %d of %d tokens in %s; first answer token p50 %s, p99 %s", prefix, g.ReasoningTokens, s.OutputTokens,
		requests(g.Requests), dms(g.TTFA, g.TTFA.P50), dms(g.TTFA, g.TTFA.P99))
	if g.AnswerTPS.Count > 0 {
		ew.printf("; answer TPS p50 %.2f tokens/s", g.AnswerTPS.P50)
	}
	if g.ToolCallTokens > 0 {
		ew.printf("; tool-call tokens: %d", g.ToolCallTokens)
	}
	ew.printf("\n")
}

// serverViewLine is what the server's own metrics said of the step.
func serverViewLine(ew *errWriter, prefix string, s *metrics.Summary, v *servermetrics.View) {
	if v.Scrapes == 0 {
		// no figure of the server's is known: none is printed as a zero
		ew.printf("%sServer's view: every scrape of its metrics failed (%d; last: %s)\n", prefix, v.Errors, v.LastError)
	} else {
		ew.printf("%sServer's view (its metrics, %d scrapes)", prefix, v.Scrapes)
		if v.Reset != "" {
			ew.printf(": %s fell during the step (the server restarted, or the counter is not one): the figures drawn from it are left out", v.Reset)
		}
		if v.Counted {
			ew.printf(": %.0f tokens generated (client: %d), %.0f prompt tokens (client: %d)", v.GenerationTokens, s.OutputTokens, v.PromptTokens, s.InputTokens)
		} else if v.Reset == "" {
			ew.printf(": no token counts (the scrapes before and after the step did not both succeed, or no counter tpsbench knows)")
		}
		if v.TTFTMeanMS > 0 {
			ew.printf(", TTFT mean %s (client: %s; the difference is the network and the time before the server's clock starts)", ms(v.TTFTMeanMS), ms(s.TTFT.Mean))
		}
		if v.QueueMeanMS > 0 || v.PrefillMeanMS > 0 {
			ew.printf(", of a first token's wait %s queued and %s from joining a batch to the token (means)", ms(v.QueueMeanMS), ms(v.PrefillMeanMS))
		}
		if v.ITLMeanMS > 0 {
			ew.printf(", ITL mean %s (client: %s)", ms(v.ITLMeanMS), ms(s.ITL.Mean))
		}
		ew.printf(", at most %.0f running and %.0f waiting, KV cache use up to %.0f%%", v.MaxRunning, v.MaxWaiting, 100*v.MaxKVCacheUsage)
		if v.PrefixHitRate > 0 {
			ew.printf(", prefix cache hit rate %.0f%%", 100*v.PrefixHitRate)
		}
		if v.EngineSteps > 0 {
			// how full its batches were: a step generates a token for each
			// sequence it decodes
			ew.printf(", %.0f engine steps", v.EngineSteps)
			if v.GeneratedPerStep > 0 {
				ew.printf(" generating %.1f tokens each on average", v.GeneratedPerStep)
			}
			if v.StepTokensMean > 0 {
				ew.printf(" (%.1f tokens a step through the model, prompts included)", v.StepTokensMean)
			}
		}
		if v.SpecAcceptance > 0 || v.SpecMeanLength > 0 {
			ew.printf(", speculative decoding: %.0f%% of draft tokens accepted, %.2f tokens a verification step (beside ITL mean %s: a step's tokens come in one chunk)",
				100*v.SpecAcceptance, v.SpecMeanLength, ms(s.ITL.Mean))
		}
		if v.Errors > 0 {
			ew.printf(" (%d scrapes failed)", v.Errors)
		}
		ew.printf("\n")
		if v.MaxWaiting > 0 && s.Concurrency > int(v.MaxRunning) {
			ew.printf("%sWarning: concurrency %d exceeds what the server ran at once (at most %.0f, with up to %.0f waiting): TTFT includes time in its queue\n",
				prefix, s.Concurrency, v.MaxRunning, v.MaxWaiting)
		}
	}
}

// replayLine says how faithfully a step replayed its trace.
func replayLine(ew *errWriter, prefix string, g *metrics.Replay) {
	ew.printf("%sReplay of a trace, %s: sent after their trace time by p50 %s, p99 %s, max %s", prefix, requests(g.Requests),
		dms(g.ArrivalLag, g.ArrivalLag.P50), dms(g.ArrivalLag, g.ArrivalLag.P99), dms(g.ArrivalLag, g.ArrivalLag.Max))
	if g.StartSpreadMS > 0 {
		ew.printf(" (starts %s apart across the records: shards)", ms(g.StartSpreadMS))
	}
	if g.InputCounted > 0 {
		ew.printf("; prompts of the trace's length: %d of %d the server counted (mean error %.1f tokens)", g.InputExact, g.InputCounted, g.InputErrorMean)
	} else {
		ew.printf("; prompt lengths not counted by the server")
	}
	ew.printf("; outputs of the trace's length: %d of %d completed", g.OutputExact, g.Completed)
	if g.TraceInputTokens > 0 {
		ew.printf("; prefix reuse in the trace: %.1f%% of its prompt tokens", 100*float64(g.ReusableTokens)/float64(g.TraceInputTokens))
	}
	ew.printf("\n")
}

// sessionsLine gives a step's multi-turn sessions: their length in time,
// and how a turn carrying the conversation so far waits for its first
// token against a session's first turn.
func sessionsLine(ew *errWriter, prefix string, v *metrics.Sessions) {
	ew.printf("%sSessions: %d, of %d turns each; a session lasted p50 %.2f s, p90 %.2f s (think times included)", prefix, v.Sessions, v.Turns, v.Duration.P50, v.Duration.P90)
	if v.FirstTTFT.Count > 0 && v.LaterTTFT.Count > 0 {
		ew.printf("; TTFT p50 %s on first turns, %s on later ones (with the conversation so far)", ms(v.FirstTTFT.P50), ms(v.LaterTTFT.P50))
	}
	ew.printf("\n")
}

// slicesTable gives a step's time slices, one a line.
func slicesTable(ew *errWriter, s *metrics.Summary) {
	if len(s.Slices) == 0 {
		return
	}
	ew.printf("\nTime slices of %s (each the requests sent in it, and every figure theirs):\n", s.Label)
	tw := tabwriter.NewWriter(ew, 2, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "start\trequests\ttokens\tTPS\tTTFT p50\tTTFT p99\tITL p50\tITL p99\t\n")
	for _, sl := range s.Slices {
		fmt.Fprintf(tw, "%.1f s\t%d\t%d\t%.2f\t%s\t%s\t%s\t%s\t\n", sl.StartS, sl.Requests, sl.Tokens, sl.TPS,
			dms(sl.TTFT, sl.TTFT.P50), dms(sl.TTFT, sl.TTFT.P99), dms(sl.ITL, sl.ITL.P50), dms(sl.ITL, sl.ITL.P99))
	}
	_ = tw.Flush()
	if n := s.SlicesLeftOut; n > 0 {
		ew.printf("%s sent after the last of the %d slices a step keeps %s in none (a longer --slice-duration keeps them all).\n", requests(n), len(s.Slices), map[bool]string{true: "is", false: "are"}[n == 1])
	}
}

// repeatsLines give each step's figures across repeated runs: the mean
// and its 95% interval, so that a difference is read against the noise.
func repeatsLines(ew *errWriter, reps []metrics.Repeat) {
	if len(reps) == 0 {
		return
	}
	ew.printf("\nAcross %d runs (mean [95%% confidence interval]):\n", reps[0].Runs)
	names := map[string]string{"system_tps": "system TPS", "request_tps_mean": "request TPS", "decode_tps_mean": "decode TPS",
		"ttft_p50_ms": "TTFT p50 ms", "ttft_p99_ms": "TTFT p99 ms", "tpot_p50_ms": "TPOT p50 ms", "itl_p50_ms": "ITL p50 ms",
		"e2e_p50_ms": "E2E p50 ms", "error_rate": "error rate"}
	for _, r := range reps {
		var parts []string
		for _, name := range metrics.RepeatFigureNames() {
			iv, ok := r.Figures[name]
			switch {
			case !ok:
			case name == "error_rate": // a share, as a percent
				parts = append(parts, fmt.Sprintf("%s %.1f%% [%.1f%%, %.1f%%]", names[name], 100*iv.Mean, 100*iv.Low, 100*iv.High))
			default: // as the tables show them
				parts = append(parts, fmt.Sprintf("%s %.2f [%.2f, %.2f]", names[name], iv.Mean, iv.Low, iv.High))
			}
		}
		ew.printf("  %s: %s\n", r.Label, strings.Join(parts, "; "))
	}
}

// mediaLines says what media the step's requests sent, and how fast its
// audio was processed.
func mediaLines(ew *errWriter, prefix string, s *metrics.Summary) {
	if s.Images+s.Audios+s.Videos > 0 {
		sent := s.Requests.Completed + s.Requests.Failed
		ew.printf("%sMedia: %d images, %d audio, %d videos sent, %.1f KB of request body a request on average (media in base64 included); prompt tokens as the server charged them: %d\n",
			prefix, s.Images, s.Audios, s.Videos, float64(s.RequestBytes)/float64(max(sent, 1))/1024, s.InputTokens)
		if u := s.Upload; u != nil && u.Count > 0 {
			ew.printf("%s  writing a request took %s p50, %s p99 once connected (before TTFT's start)\n", prefix, ms(u.P50), ms(u.P99))
		}
	}
	if s.RealTimeFactor > 0 {
		ew.printf("%sAudio: %.1f s processed at %.2fx real time (audio seconds a second of send to answer's end, per request), %.2f audio seconds a second over the step\n",
			prefix, s.AudioSeconds, s.RealTimeFactor, s.AudioSecondsPerSecond)
	}
}

// phasesTables give each step's HTTP phases, k6's names and AIPerf's
// table: where a request's time went before its first token and after.
func phasesTables(ew *errWriter, steps []metrics.Summary) {
	shown := false
	for i := range steps {
		s := &steps[i]
		p := s.HTTP
		if p == nil {
			continue
		}
		shown = true
		of := ""
		if len(steps) > 1 {
			of = " of " + s.Label
		}
		ew.printf("\nHTTP phases%s (k6's http_req_*), %s, %d on a reused connection (%.0f%%):\n", of, requests(p.Requests), p.Reused, 100*p.ReusedShare())
		var rows []namedDist
		p.Each(func(name string, d *metrics.Dist) { rows = append(rows, namedDist{name, *d}) })
		msTable(ew, s, rows)
	}
	if !shown {
		ew.printf("\nNo HTTP phases: no completed request went over HTTP (the engine in process is called directly).\n")
	}
}

// accuracyLine gives a step's graded answers, and beside the first
// graded step's how many of its answers were the same (batch invariance).
func accuracyLine(ew *errWriter, prefix string, a *metrics.Accuracy) {
	ew.printf("%sAccuracy: %d of %d answers right (%.1f%%), asked under this load", prefix, a.Correct, a.Graded, 100*a.Share)
	if a.Compared > 0 {
		ew.printf("; %d of %d answers to the requests %s also answered were its answers to the letter (batch invariance)", a.SameAsFirst, a.Compared, a.Base)
	}
	ew.printf("\n")
}
