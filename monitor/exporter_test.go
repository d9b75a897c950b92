package monitor

import (
	"strings"
	"testing"

	"github.com/tpsbench/tpsbench/record"
)

// TestExporterBeyondText: an embeddings request adds its inputs to
// tpsbench_inputs_total and its duration (to the answer's end), and no
// output token usage (none applies); a transcription adds its audio's
// seconds and, as any generation, its output tokens.
func TestExporterBeyondText(t *testing.T) {
	e := NewExporter()
	embed := &record.Record{Model: "e", Sent: 0, Done: 40e6, Inputs: 3, PromptTokens: 12}
	speech := &record.Record{Model: "w", Sent: 0, First: 30e6, Last: 50e6, Done: 51e6, OutputTokens: 4, AudioSeconds: 2.5, Audios: 1, Stream: true}
	for _, r := range []*record.Record{embed, speech} {
		e.Sent(r)
		e.Observe(r)
	}
	got, _ := gathered(t, e)
	want := map[string]float64{
		"tpsbench_inputs_total,e,":                               3,
		"tpsbench_audio_seconds_total,w,":                        2.5,
		"gen_ai_client_operation_duration_seconds,e,":            1,
		"gen_ai_client_token_usage,e,input,":                     1,
		"gen_ai_client_token_usage,w,output,":                    1,
		"tpsbench_output_tokens_total,w,":                        4,
		"gen_ai_client_token_usage,e,output,":                    0,
		"gen_ai_client_operation_time_to_first_chunk_seconds,e,": 0,
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %v, want %v", k, got[k], v)
		}
	}
}

// TestExporterHTTPPhases: a completed request over HTTP adds each of its
// phases, in seconds, and counts its connection as reused or not; one
// that went over no HTTP (the engine in process) adds none.
func TestExporterHTTPPhases(t *testing.T) {
	e := NewExporter()
	overHTTP := &record.Record{Model: "h", Sent: 0, First: 30e6, Last: 50e6, Done: 51e6, OutputTokens: 4, Stream: true, Upload: 1e6,
		HTTP: &record.HTTPPhases{Reused: true, TLS: 2e6, Waiting: 30e6, Receiving: 21e6}}
	inProcess := &record.Record{Model: "p", Sent: 0, First: 30e6, Last: 50e6, Done: 51e6, OutputTokens: 4, Stream: true}
	for _, r := range []*record.Record{overHTTP, inProcess} {
		e.Sent(r)
		e.Observe(r)
	}
	counts, sums := gathered(t, e)
	for phase, want := range map[string]float64{"blocked": 0, "tls_handshaking": 0.002, "sending": 0.001, "waiting": 0.03, "receiving": 0.021} {
		key := "tpsbench_http_req_seconds,h," + phase + ","
		if counts[key] != 1 || sums[key] != want {
			t.Errorf("%s: %v samples summing to %v, want one of %v", key, counts[key], sums[key], want)
		}
	}
	if counts["tpsbench_http_requests_total,h,true,"] != 1 || counts["tpsbench_http_requests_total,h,false,"] != 0 {
		t.Errorf("connections: %v", counts)
	}
	for k := range counts {
		if strings.Contains(k, "tpsbench_http") && strings.Contains(k, ",p,") {
			t.Errorf("a request over no HTTP added %s", k)
		}
	}
}

// gathered are the exporter's series by name and label values (in the
// order of the labels' names): a counter's value or a histogram's count,
// and a histogram's sum.
func gathered(t *testing.T, e *Exporter) (counts, sums map[string]float64) {
	t.Helper()
	families, err := e.reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	counts, sums = map[string]float64{}, map[string]float64{}
	for _, fam := range families {
		for _, m := range fam.GetMetric() {
			key := fam.GetName()
			for _, l := range m.GetLabel() {
				key += "," + l.GetValue()
			}
			switch {
			case m.GetCounter() != nil:
				counts[key] = m.GetCounter().GetValue()
			case m.GetHistogram() != nil:
				counts[key], sums[key] = float64(m.GetHistogram().GetSampleCount()), m.GetHistogram().GetSampleSum()
			}
		}
	}
	return counts, sums
}
