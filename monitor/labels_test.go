package monitor

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/tpsbench/tpsbench/record"
)

// TestLabelsStayBounded: model names from arbitrary traffic (invalid
// UTF-8, a kilobyte long, more of them than the cap) neither panic the
// exporter nor grow its series without bound, and every request's
// in-flight increment meets its decrement.
func TestLabelsStayBounded(t *testing.T) {
	e := NewExporter()
	models := []string{"\xff\xfe", strings.Repeat("é", 600)}
	for i := range 2 * maxModels {
		models = append(models, fmt.Sprintf("model-%d", i))
	}
	for i, m := range models {
		r := &record.Record{Model: m, Step: "proxy\xff", Sent: 0, First: 1e6, Last: 5e6, OutputTokens: 5}
		if i%3 == 0 {
			r.Fail("http_\xffstatus", "HTTP 500")
		}
		e.Sent(r)
		e.Observe(r)
	}
	families, err := e.reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, fam := range families {
		switch fam.GetName() {
		case "tpsbench_records_lost_total", "tpsbench_output_tokens_per_second", "tpsbench_output_tokens_per_second_cumulative":
			continue // no labels: figures of the whole process
		}
		values := map[string]bool{}
		var sum float64
		for _, m := range fam.GetMetric() {
			for _, l := range m.GetLabel() {
				if !utf8.ValidString(l.GetValue()) || len(l.GetValue()) > maxLabelBytes {
					t.Fatalf("%s: label %s=%q", fam.GetName(), l.GetName(), l.GetValue())
				}
				if l.GetName() == "gen_ai_request_model" {
					values[l.GetValue()] = true
				}
			}
			switch {
			case m.GetGauge() != nil:
				sum += m.GetGauge().GetValue()
			case m.GetCounter() != nil:
				sum += m.GetCounter().GetValue()
			}
		}
		if len(values) > maxModels+1 || !values[otherModels] {
			t.Errorf("%s: %d model labels (cap %d), other present: %v", fam.GetName(), len(values), maxModels, values[otherModels])
		}
		switch fam.GetName() {
		case "tpsbench_requests_in_flight":
			if sum != 0 {
				t.Errorf("in flight %v after every request ended", sum)
			}
		case "tpsbench_requests_total":
			if sum != float64(len(models)) {
				t.Errorf("%v requests counted, %d sent", sum, len(models))
			}
		}
	}
}

func TestCleanLabel(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"llama-3", "llama-3"},
		{"a\xffb", "a\uFFFDb"},
		{strings.Repeat("x", 200), strings.Repeat("x", maxLabelBytes)},
		// a cut inside a two-byte rune steps back to its start
		{strings.Repeat("x", maxLabelBytes-1) + "é", strings.Repeat("x", maxLabelBytes-1)},
	} {
		if got := cleanLabel(tc.in); got != tc.want {
			t.Errorf("cleanLabel(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestInFlightMeetsItsLabels: the client learns a request's model after
// it is sent (the record has none at Sent), and a gauge raised under one
// label and lowered under another read +89 and -87 in the middle of a run.
// Every series, not only their sum, is back at 0 when the requests end,
// and none is ever negative.
func TestInFlightMeetsItsLabels(t *testing.T) {
	e := NewExporter()
	var recs []*record.Record
	for i := range 5 {
		r := &record.Record{Step: "c=4", Sent: 0, First: 1e6, Last: 5e6, OutputTokens: 5}
		e.Sent(r)
		r.Model = fmt.Sprintf("model-%d", i%2) // as client.HTTP.Do fills it in
		recs = append(recs, r)
	}
	inFlight := func() map[string]float64 {
		families, err := e.reg.Gather()
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]float64{}
		for _, fam := range families {
			if fam.GetName() != "tpsbench_requests_in_flight" {
				continue
			}
			for _, m := range fam.GetMetric() {
				got[m.GetLabel()[0].GetValue()+"/"+m.GetLabel()[1].GetValue()] = m.GetGauge().GetValue()
			}
		}
		return got
	}
	for _, r := range recs[:2] {
		e.Observe(r)
	}
	for series, v := range inFlight() {
		if v < 0 {
			t.Errorf("%s: %v in flight with 3 requests running", series, v)
		}
	}
	for _, r := range recs[2:] {
		e.Observe(r)
	}
	for series, v := range inFlight() {
		if v != 0 {
			t.Errorf("%s: %v in flight after every request ended", series, v)
		}
	}
}
