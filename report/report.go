// Package report renders step summaries as text, JSON, CSV or Markdown.
package report

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/tpsbench/tpsbench/metrics"
)

// Formats lists the formats Render knows.
var Formats = []string{"text", "json", "csv", "markdown", "html"}

// Report is what gets rendered. Its JSON form is tpsbench's stable output.
type Report struct {
	Tool    string            `json:"tool"`
	Version string            `json:"version"`
	Steps   []metrics.Summary `json:"steps"`
	Pass    bool              `json:"pass"`
	// Interrupted is set when the run was stopped early.
	Interrupted bool `json:"interrupted,omitempty"`
	// Compare adds ratios of every step against the first.
	Compare bool `json:"-"`
	// TraceTiming adds each step's HTTP phases to the text report, in a
	// table apart (AIPerf's --show-trace-timing); JSON and HTML carry
	// them always.
	TraceTiming bool `json:"-"`
	// Note is a conclusion printed after the figures (the answer of a
	// --find-max search).
	Note string `json:"note,omitempty"`
	// BestConcurrency, after a --find-max search that found one, is the
	// concurrency it answered: the highest meeting every target (or, past
	// saturation, the passing one of most throughput).
	BestConcurrency int `json:"best_concurrency,omitempty"`
	// BestRate, after a --search-space rate:LO,HI search that found one,
	// is the request rate it answered, as BestConcurrency.
	BestRate float64 `json:"best_rate,omitempty"`
	// Sent is what every request carried besides its prompt and budget
	// (sampling parameters, ignore_eos, --extra-body's fields), by body
	// field name: what a figure was measured under.
	Sent map[string]any `json:"sent,omitempty"`
	// Repeats are each step's figures across repeated runs (--repeat),
	// with their 95% confidence intervals.
	Repeats []metrics.Repeat `json:"repeats,omitempty"`
}

// sentLine is Sent as one line, fields in order, values as JSON.
func sentLine(sent map[string]any) string {
	keys := make([]string, 0, len(sent))
	for k := range sent {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		v, err := json.Marshal(sent[k])
		if err != nil {
			v = []byte(fmt.Sprint(sent[k]))
		}
		parts = append(parts, k+" "+string(v))
	}
	return strings.Join(parts, ", ")
}

// New builds a report of steps.
func New(version string, steps []metrics.Summary) *Report {
	if steps == nil {
		steps = []metrics.Summary{}
	}
	return &Report{Tool: "tpsbench", Version: version, Steps: steps, Pass: metrics.Pass(steps)}
}

// CheckFormat returns an error for an unknown format name.
func CheckFormat(format string) error {
	for _, f := range Formats {
		if f == format {
			return nil
		}
	}
	return fmt.Errorf("format %q: want one of %s", format, strings.Join(Formats, ", "))
}

// Render writes r in format.
func Render(w io.Writer, format string, r *Report) error {
	switch format {
	case "text":
		return Text(w, r)
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(r)
	case "csv":
		return CSV(w, r)
	case "markdown":
		return Markdown(w, r)
	case "html":
		return HTML(w, r)
	}
	return CheckFormat(format)
}
