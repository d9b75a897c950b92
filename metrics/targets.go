package metrics

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Target figures: per-request ones are checked on every request; system_tps
// on the step as a whole.
const (
	TargetTTFT       = "ttft"        // ms, at most
	TargetTPOT       = "tpot"        // ms, at most
	TargetE2E        = "e2e"         // ms, at most
	TargetRequestTPS = "request_tps" // tokens/s per request, at least
	TargetDecodeTPS  = "decode_tps"  // tokens/s per request after the first token, at least
	TargetSystemTPS  = "system_tps"  // tokens/s for the step, at least
)

// Target is one goal a step must meet.
type Target struct {
	Name string  `json:"name"`
	Want float64 `json:"want"` // ms for latencies, tokens/s for rates
	// UseCase is the use case whose target this is (chat, code, batch),
	// when it came from one.
	UseCase string `json:"use_case,omitempty"`
}

// Check says what is wrong with the target, if anything: a name of the
// known ones and a positive value.
func (t Target) Check() error {
	switch t.Name {
	case TargetTTFT, TargetTPOT, TargetE2E, TargetRequestTPS, TargetDecodeTPS, TargetSystemTPS:
	default:
		return fmt.Errorf("target %q: unknown (want ttft, tpot, e2e, request_tps, decode_tps or system_tps)", t.Name)
	}
	if t.Want <= 0 || math.IsNaN(t.Want) || math.IsInf(t.Want, 0) {
		return fmt.Errorf("target %s: want a positive value", t.Name)
	}
	return nil
}

// higher reports whether a larger value is better for the target.
func (t Target) higher() bool {
	return t.Name == TargetRequestTPS || t.Name == TargetDecodeTPS || t.Name == TargetSystemTPS
}

func (t Target) perRequest() bool { return t.Name != TargetSystemTPS }

// Unit is the target's unit as printed.
func (t Target) Unit() string {
	if t.higher() {
		return "tok/s"
	}
	return "ms"
}

// Targets is a set of goals and the share of requests that must meet each
// per-request goal.
type Targets struct {
	List  []Target `json:"list"`
	Share float64  `json:"share,omitempty"` // 0 < Share <= 1; 0 means DefaultShare
}

// DefaultShare is the share of requests that must meet a per-request target.
const DefaultShare = 0.99

// Check says what is wrong with the targets, if anything: the share of
// requests that must meet them, and each target's own values.
func (ts Targets) Check() error {
	if !(ts.Share >= 0 && ts.Share <= 1) {
		return fmt.Errorf("a share of requests meeting the targets of %v: want above 0 and at most 1 (0: %v)", ts.Share, DefaultShare)
	}
	for _, t := range ts.List {
		if err := t.Check(); err != nil {
			return err
		}
	}
	return nil
}

func (ts Targets) share() float64 {
	if ts.Share <= 0 {
		return DefaultShare
	}
	return ts.Share
}

// UseCase returns the target of a use case (docs/design.md).
func UseCase(name string) (Target, error) {
	switch name {
	case "chat":
		return Target{Name: TargetRequestTPS, Want: 30, UseCase: name}, nil
	case "code":
		return Target{Name: TargetRequestTPS, Want: 50, UseCase: name}, nil
	case "batch":
		return Target{Name: TargetSystemTPS, Want: 200, UseCase: name}, nil
	}
	return Target{}, fmt.Errorf("use case %q: want chat, batch or code", name)
}

// ParseSLO parses "ttft=500ms,tpot=40ms,request_tps=30,system_tps=200".
// Latencies take a Go duration or a bare number of milliseconds.
func ParseSLO(s string) ([]Target, error) {
	var out []Target
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		name, val, ok := strings.Cut(part, "=")
		if !ok {
			return nil, fmt.Errorf("target %q: want name=value", part)
		}
		t := Target{Name: strings.TrimSpace(name)}
		val = strings.TrimSpace(val)
		switch t.Name {
		case TargetTTFT, TargetTPOT, TargetE2E:
			if d, err := time.ParseDuration(val); err == nil {
				t.Want = float64(d) / 1e6
			} else if f, err := strconv.ParseFloat(val, 64); err == nil {
				t.Want = f
			} else {
				return nil, fmt.Errorf("target %s=%q: want a duration such as 500ms", t.Name, val)
			}
		case TargetRequestTPS, TargetDecodeTPS, TargetSystemTPS:
			f, err := strconv.ParseFloat(val, 64)
			if err != nil {
				return nil, fmt.Errorf("target %s=%q: want tokens per second", t.Name, val)
			}
			t.Want = f
		}
		if err := t.Check(); err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

// Verdict is a target checked against a step.
type Verdict struct {
	Target
	// Got is the step's value: system TPS, or for a per-request target the
	// value that the required share of completed requests meets (p99 of
	// TTFT, p1 of request TPS, for a share of 99%).
	Got  float64 `json:"got"`
	Met  float64 `json:"met,omitempty"`  // share of measured requests (failed ones included) meeting it
	Need float64 `json:"need,omitempty"` // share required
	Pass bool    `json:"pass"`
	// NotMeasurable: no request had the figure (the TPOT of non-streamed
	// responses, any figure of a step whose requests all failed). Such a
	// target fails: it was asked for and cannot be shown to hold.
	NotMeasurable bool `json:"not_measurable,omitempty"`
}

// perRequestValue is the record's value for a per-request target, and
// whether it has one.
func perRequestValue(name string, f requestFigures) (float64, bool) {
	switch name {
	case TargetTTFT:
		return f.ttft / 1e6, f.hasTimes
	case TargetTPOT:
		return f.tpot / 1e6, f.hasTPOT
	case TargetE2E:
		return f.e2e / 1e6, f.hasE2E
	case TargetRequestTPS:
		return f.tps, f.hasTPS
	case TargetDecodeTPS:
		if !f.hasTPOT || f.tpot <= 0 {
			return 0, false
		}
		return 1e9 / f.tpot, true
	}
	return 0, false
}

func (t Target) meets(v float64) bool {
	if t.higher() {
		return v >= t.Want
	}
	return v <= t.Want
}

// verdicts checks the step against its targets, and sets its goodput
// when a target is per request.
func (s *Accumulator) verdicts(sum *Summary, window float64) {
	measured := s.req.Completed + s.req.Failed
	share := s.targets.share()
	hasPerRequest := false
	for i, t := range s.targets.List {
		v := Verdict{Target: t}
		if !t.perRequest() {
			v.Got = sum.SystemTPS
			v.NotMeasurable = s.req.Completed == 0 || window <= 0
			v.Pass = !v.NotMeasurable && t.meets(v.Got)
		} else {
			hasPerRequest = true
			q := share * 100
			if t.higher() {
				q = 100 - q
			}
			v.Got = s.values[i].quantile(q)
			v.Need = share
			if measured > 0 {
				v.Met = float64(s.met[i]) / float64(measured)
			}
			v.NotMeasurable = s.values[i].n == 0
			v.Pass = !v.NotMeasurable && v.Met >= share-1e-12
		}
		sum.Targets = append(sum.Targets, v)
	}
	if hasPerRequest && window > 0 {
		sum.Goodput = &Goodput{Requests: s.good, RequestThroughput: float64(s.good) / window, TPS: float64(s.goodTk) / window}
	}
}
