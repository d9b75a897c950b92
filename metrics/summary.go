package metrics

import (
	"strings"
	"time"

	"sort"

	"github.com/tpsbench/tpsbench/record"
	"github.com/tpsbench/tpsbench/servermetrics"
)

// Requests counts a step's measured requests by outcome.
type Requests struct {
	Completed int            `json:"completed"`
	Failed    int            `json:"failed"`
	Failures  map[string]int `json:"failures"`
	// Cancelled counts the requests the run cancelled as planned (a share
	// of users leaving mid-answer): neither completed nor failed.
	Cancelled int `json:"cancelled,omitempty"`
	// Reasons are why they failed, most frequent first; OtherReasons
	// counts failures for reasons past the first 16 distinct ones.
	Reasons      []FailureReason `json:"reasons,omitempty"`
	OtherReasons int             `json:"other_reasons,omitempty"`
}

// Goodput is the part of the load that met every per-request target.
type Goodput struct {
	Requests          int     `json:"requests"`
	RequestThroughput float64 `json:"request_throughput"`
	TPS               float64 `json:"tps"`
}

// Summary is one step's figures. Its JSON form is part of tpsbench's
// stable output.
type Summary struct {
	Label       string  `json:"label"`
	Convention  string  `json:"convention,omitempty"` // set when not tpsbench's own
	Model       string  `json:"model"`
	URL         string  `json:"url"`
	API         string  `json:"api"`
	Concurrency int     `json:"concurrency"`
	Rate        float64 `json:"rate"`

	Requests  Requests `json:"requests"`
	ErrorRate float64  `json:"error_rate"` // failed / measured requests
	Warmup    int      `json:"warmup_requests"`
	// RampUp and CoolDown count the requests started while the load rose
	// or fell away (record.Record.Phase), kept out of the figures.
	RampUp   int `json:"ramp_up_requests,omitempty"`
	CoolDown int `json:"cool_down_requests,omitempty"`

	DurationS   float64 `json:"duration_s"`
	InputTokens int64   `json:"input_tokens"`
	// CachedTokens are the prompt tokens the server says its cache held
	// (record.CachedTokens); CachedShare their share of InputTokens.
	CachedTokens int64   `json:"cached_tokens,omitempty"`
	CachedShare  float64 `json:"cached_share,omitempty"`
	OutputTokens int64   `json:"output_tokens"`

	SystemTPS         float64 `json:"system_tps"`
	TotalTPS          float64 `json:"total_tps"`
	RequestThroughput float64 `json:"request_throughput"`
	AchievedRate      float64 `json:"achieved_rate,omitempty"` // requests sent per second, in an open-loop (rate) step only
	// RampFrom and RampTo are the lowest and highest rates a step's
	// requests were started at, when they differ (a ramp: the records
	// carry each request's own rate); Rate is then not a figure.
	RampFrom            float64 `json:"ramp_from,omitempty"`
	RampTo              float64 `json:"ramp_to,omitempty"`
	AchievedConcurrency float64 `json:"achieved_concurrency"`
	PerRequestTPS       float64 `json:"per_request_tps"` // system TPS / achieved concurrency
	// PeakTPS and PeakTPS60 are the highest system TPS over any 1 s and
	// 60 s window of the step; 0 for a step shorter than two windows,
	// which has none apart from its whole.
	PeakTPS   float64 `json:"peak_tps"`
	PeakTPS60 float64 `json:"peak_tps_60s"`
	// The windows of PeakTPS and PeakTPS60 when wider than 1 s and 60 s:
	// over spans of more than 72 hours (half a year) the rolling bins
	// widen so that memory stays bounded (docs/metrics.md).
	PeakWindowS   float64 `json:"peak_window_s,omitempty"`
	PeakWindow60S float64 `json:"peak_window_60s,omitempty"`

	ClientLag  Dist `json:"client_lag_ms"`
	TTFT       Dist `json:"ttft_ms"`
	TPOT       Dist `json:"tpot_ms"`
	ITL        Dist `json:"itl_ms"`
	InterChunk Dist `json:"inter_chunk_ms"`
	E2E        Dist `json:"e2e_ms"`
	RequestTPS Dist `json:"request_tps"`
	DecodeTPS  Dist `json:"decode_tps"`
	// TTST is the second token-bearing chunk's arrival after the first's
	// (AIPerf's), PrefillTPS the prompt's tokens over TTFT, a request each
	TTST       Dist `json:"ttst_ms"`
	PrefillTPS Dist `json:"prefill_tps"`
	// HTTP is where the completed requests' time went in the HTTP
	// transport; nil where none went over HTTP (the engine in process).
	HTTP *HTTPPhases `json:"http_phases,omitempty"`
	// Accuracy is how the step's graded answers fared, and how they
	// compare with the first graded step's; nil where none was graded.
	Accuracy *Accuracy `json:"accuracy,omitempty"`

	TokenSources  map[string]int `json:"token_sources"`
	ShortOutputs  int            `json:"short_outputs"`          // completed requests that made fewer tokens than their max_tokens
	LongOutputs   int            `json:"long_outputs,omitempty"` // completed requests that made more tokens than their max_tokens
	TokenMismatch int            `json:"token_mismatch"`         // requests whose usage count differs from their token-bearing chunks
	// TokenizerShort is the requests whose client tokenizer counted fewer
	// tokens than chunks carried them: their chunks' count was used
	TokenizerShort int `json:"tokenizer_short,omitempty"`
	UsageSuspect   int `json:"usage_suspect,omitempty"` // requests whose usage was not believed (record.UsageSuspect)
	Retried        int `json:"retried,omitempty"`       // requests sent again on a fresh connection (record.Retries)
	// Chunks and BatchedChunks: token-bearing chunks of completed
	// requests, and those that arrived in the same read as the chunk
	// before them (a server or network that batches its output).
	Chunks        int64 `json:"chunks"`
	BatchedChunks int64 `json:"batched_chunks"`
	// BatchedWhileLate: those of BatchedChunks that arrived while a
	// request was more than 1 ms past due and not yet sent: the client
	// was busy starting requests, and the batching is its own.
	BatchedWhileLate int64 `json:"batched_while_late,omitempty"`

	// Reasoning holds the reasoning models' figures, when a completed
	// request reasoned or called a tool.
	Reasoning *Reasoning `json:"reasoning,omitempty"`
	// Replay says how faithfully the step replayed a trace, when it did.
	Replay *Replay `json:"replay,omitempty"`
	// Sessions are the step's multi-turn sessions' figures, when it ran
	// sessions.
	Sessions *Sessions `json:"sessions,omitempty"`
	// Models are each model's figures, when the step sent to several (a
	// mix of LoRA adapters or of served models).
	Models []PartFigures `json:"models,omitempty"`
	// URLs are each server's figures, when the step sent to several
	// (replicas behind one run). Models and URLs each keep their first 64
	// apart, the rest together under "(others)".
	URLs []PartFigures `json:"urls,omitempty"`
	// Slices are the step's figures slice by slice, when asked for
	// (Steps.WithSlices).
	Slices []Slice `json:"slices,omitempty"`
	// SlicesLeftOut counts the requests sent after the last slice a step
	// keeps (at most 2,000), which are in no slice.
	SlicesLeftOut int `json:"slices_left_out,omitempty"`
	// Images, Audios, Videos and RequestBytes are what the measured
	// requests sent: media with their prompts (or audio transcribed), and
	// request bodies' bytes (media included).
	Images       int64 `json:"images,omitempty"`
	Audios       int64 `json:"audios,omitempty"`
	Videos       int64 `json:"videos,omitempty"`
	RequestBytes int64 `json:"request_bytes,omitempty"`
	// Upload is how long the requests with media took to write once
	// connected (record.Record.Upload), in ms: what their bodies cost
	// before the server could start.
	Upload *Dist `json:"upload_ms,omitempty"`
	// AudioSeconds is the audio of a known length (a WAV's) the completed
	// requests sent; RealTimeFactor is it over their seconds from send to
	// answer's end (audio seconds per second of processing, the Open ASR
	// Leaderboard's RTFx), and AudioSecondsPerSecond it over the step's
	// window: the server's audio throughput.
	AudioSeconds          float64 `json:"audio_s,omitempty"`
	RealTimeFactor        float64 `json:"real_time_factor,omitempty"`
	AudioSecondsPerSecond float64 `json:"audio_s_per_s,omitempty"`
	// Outputless marks a step of requests that generate nothing
	// (embeddings): its figures are latency, Inputs (of its completed
	// requests) and InputsPerSecond, and input tokens a second
	// (TotalTPS); no figure of output tokens applies.
	Outputless      bool    `json:"outputless,omitempty"`
	Inputs          int64   `json:"inputs,omitempty"`
	InputsPerSecond float64 `json:"inputs_per_s,omitempty"`
	// Energy is what the step spent, when a meter was read around it.
	Energy *Energy `json:"energy,omitempty"`
	// Cost is what its tokens cost at the machine's price (CostAt).
	Cost *Cost `json:"cost,omitempty"`

	Goodput *Goodput `json:"goodput,omitempty"`
	// Server is the server's own account of the step, when its metrics
	// were scraped (--server-metrics).
	Server *servermetrics.View `json:"server,omitempty"`
	// Client is the measuring process's own CPU over the step, when the
	// server runs in another process. It is a figure of the run, not of
	// its records, so no report (which records alone make) carries it.
	Client *ClientLoad `json:"-"`
	// Opened: the connections the client opened before the step, for the
	// requests it sent in its first instant; a figure of the run.
	Opened *OpenedConnections `json:"-"`
	// Stopped, when set, says why the step stopped early (Plan.MaxErrors
	// or Plan.MaxErrorRate); a figure of the run, like Client.
	Stopped *EarlyStop `json:"-"`
	Targets []Verdict  `json:"targets"`

	// Start and End are the window's bounds in Unix ns.
	Start int64 `json:"start_unix_ns"`
	End   int64 `json:"end_unix_ns"`
	// Charts holds what HTML reports draw; not in the JSON report.
	Charts *Charts `json:"-"`
}

// Pass reports whether every target of every step passed.
func Pass(steps []Summary) bool {
	for _, s := range steps {
		for _, v := range s.Targets {
			if !v.Pass {
				return false
			}
		}
	}
	return true
}

// Steps groups records by step index, in index order.
type Steps struct {
	targets     Targets
	convention  string
	percentiles []float64
	slice       time.Duration
	byIndex     map[stepPart]*Accumulator
}

// stepPart is a step's requests of one kind: those that generate tokens,
// or those that generate none (embeddings, rerank). A records file of an
// app that does both (the proxy's) has both in one step, and each kind
// has figures of its own: counted together, 52 chat requests that made
// 376 tokens were reported as embeddings, with no TPS at all.
type stepPart struct {
	index      int
	outputless bool
}

// NewSteps returns an empty grouping.
func NewSteps(targets Targets) *Steps {
	return &Steps{targets: targets, byIndex: map[stepPart]*Accumulator{}}
}

// WithConvention makes the steps report TPOT and ITL under another tool's
// definitions (a name from Conventions).
func (ss *Steps) WithConvention(c string) *Steps {
	ss.convention = c
	return ss
}

// Add counts one record in its step.
func (ss *Steps) Add(r *record.Record) {
	part := stepPart{r.StepIndex, r.Outputless()}
	s := ss.byIndex[part]
	if s == nil {
		s = NewAccumulator(ss.targets)
		s.setConvention(ss.convention)
		s.percentiles = ss.percentiles
		s.slices.dur = int64(ss.slice)
		ss.byIndex[part] = s
	}
	s.Add(r)
}

// Summaries returns each step's summary, in step order; a step of both
// kinds of request gives one summary of each, generating first, each
// labelled with its API.
func (ss *Steps) Summaries() []Summary {
	parts := make([]stepPart, 0, len(ss.byIndex))
	for p := range ss.byIndex {
		parts = append(parts, p)
	}
	sort.Slice(parts, func(i, j int) bool {
		a, b := parts[i], parts[j]
		return a.index < b.index || a.index == b.index && !a.outputless && b.outputless
	})
	out := make([]Summary, 0, len(parts))
	for _, p := range parts {
		sum := ss.byIndex[p].Summary()
		if _, both := ss.byIndex[stepPart{p.index, !p.outputless}]; both {
			kind := map[bool]string{false: "generating", true: "no output"}[p.outputless]
			if sum.API != "" {
				kind = sum.API
			}
			sum.Label = strings.TrimSpace(sum.Label + " (" + kind + ")")
		}
		out = append(out, sum)
	}
	compareAnswers(out)
	return out
}
