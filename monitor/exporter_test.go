package monitor

import (
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
	families, err := e.reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, fam := range families {
		for _, m := range fam.GetMetric() {
			key := fam.GetName()
			for _, l := range m.GetLabel() { // in the order of their names
				key += "," + l.GetValue()
			}
			switch {
			case m.GetCounter() != nil:
				got[key] = m.GetCounter().GetValue()
			case m.GetHistogram() != nil:
				got[key] = float64(m.GetHistogram().GetSampleCount())
			}
		}
	}
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
