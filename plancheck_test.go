package tpsbench_test

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/tpsbench/tpsbench"
	"github.com/tpsbench/tpsbench/client"
	"github.com/tpsbench/tpsbench/load"
	"github.com/tpsbench/tpsbench/metrics"
	"github.com/tpsbench/tpsbench/record"
	"github.com/tpsbench/tpsbench/workload"
)

// noClient is a client Validate need never call.
type noClient struct{}

func (noClient) Do(context.Context, *client.Request, *record.Record) {}
func (noClient) Clock() *record.Clock                                { return nil }

// TestPlanValidate: a plan's settings and steps out of range are refused
// before anything is sent, each saying what it is.
func TestPlanValidate(t *testing.T) {
	step := tpsbench.Step{Label: "s", Client: noClient{}, Workload: workload.Fixed{Prompt: "p", MaxTokens: 1},
		Profile: load.Profile{Shape: load.Users{Count: 1}, Requests: 1}}
	good := tpsbench.Plan{Steps: []tpsbench.Step{step}}
	if err := good.Validate(); err != nil {
		t.Fatalf("a plain plan refused: %v", err)
	}
	for _, c := range []struct {
		says string
		edit func(p *tpsbench.Plan)
	}{
		{"no steps", func(p *tpsbench.Plan) { p.Steps = nil }},
		{"a client and a workload", func(p *tpsbench.Plan) { p.Steps = []tpsbench.Step{{Label: "s", Profile: step.Profile}} }},
		{"a profile needs a shape", func(p *tpsbench.Plan) {
			p.Steps = []tpsbench.Step{{Label: "s", Client: noClient{}, Workload: step.Workload}}
		}},
		{"slice duration", func(p *tpsbench.Plan) { p.SliceDuration = time.Microsecond }},
		{"slice duration", func(p *tpsbench.Plan) { p.SliceDuration = -time.Second }},
		{"max errors", func(p *tpsbench.Plan) { p.MaxErrors = -1 }},
		{"max error rate", func(p *tpsbench.Plan) { p.MaxErrorRate = 1.5 }},
		{"max error rate", func(p *tpsbench.Plan) { p.MaxErrorRate = math.NaN() }},
		{"window", func(p *tpsbench.Plan) { p.ErrorWindow = -1 }},
		{"convention", func(p *tpsbench.Plan) { p.Convention = "llmperf2" }},
		{"percentile", func(p *tpsbench.Plan) { p.Percentiles = []float64{0} }},
		{"given twice", func(p *tpsbench.Plan) { p.Percentiles = []float64{90, 90} }},
		{"share", func(p *tpsbench.Plan) { p.Targets.Share = 2 }},
		{"unknown", func(p *tpsbench.Plan) { p.Targets.List = []metrics.Target{{Name: "speed", Want: 1}} }},
		{"positive", func(p *tpsbench.Plan) { p.Targets.List = []metrics.Target{{Name: metrics.TargetTTFT, Want: -1}} }},
		{"first step", func(p *tpsbench.Plan) { p.FirstStep = -1 }},
	} {
		p := good
		c.edit(&p)
		err := p.Validate()
		if err == nil || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%s: %v", c.says, err)
		}
		if _, runErr := tpsbench.Run(context.Background(), p); runErr == nil || runErr.Error() != err.Error() {
			t.Errorf("%s: Run said %v, Validate %v", c.says, runErr, err)
		}
	}
}
