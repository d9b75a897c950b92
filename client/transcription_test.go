package client

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tpsbench/tpsbench/internal/scripted"
	"github.com/tpsbench/tpsbench/record"
	"github.com/tpsbench/tpsbench/workload"
)

// TestTranscription: a WAV sent to the scripted server's transcriptions
// endpoint, streamed and whole, completes with the tokens it sent (each
// stream event stamped no earlier than the server's log says it wrote
// it), the audio's prompt tokens, and the audio's length recorded.
func TestTranscription(t *testing.T) {
	srv := scripted.New(scripted.Script{TTFT: 10 * time.Millisecond, Gap: 3 * time.Millisecond})
	defer srv.Close()
	audio, err := workload.SyntheticAudio(1.5, 1)
	if err != nil {
		t.Fatal(err)
	}
	for i, stream := range []bool{true, false} {
		c := newClient(t, srv.URL, func(cfg *HTTPConfig) { cfg.API, cfg.Stream = APITranscription, stream })
		var rec record.Record
		c.Do(context.Background(), &Request{Model: "m", Prompt: "ignored", MaxTokens: 5, Media: audio[:1]}, &rec)
		if !rec.OK() || rec.OutputTokens != 5 || rec.PromptTokens != 38 || rec.Audios != 1 || rec.AudioSeconds != 1.5 || rec.TokenSource != record.SourceUsage {
			t.Fatalf("stream %v: record %+v (error %+v)", stream, rec, rec.Error)
		}
		sent, ok := srv.Log(fmt.Sprintf("trsc-%d", i)) // a whole answer names no id
		if !ok {
			t.Fatalf("stream %v: no log of request %d", stream, i)
		}
		if stream {
			if len(rec.Chunks) != 5 || len(sent.Events) != 5 {
				t.Fatalf("stream: %d chunks, %d events sent", len(rec.Chunks), len(sent.Events))
			}
			for i, ch := range rec.Chunks {
				if at := rec.Abs(rec.Sent + ch.At); at < sent.Events[i].UnixNano() {
					t.Errorf("chunk %d read %d ns before the server wrote it", i, sent.Events[i].UnixNano()-at)
				}
			}
		}
		if strings.Contains(string(sent.Request), "ignored") {
			t.Errorf("the workload's prompt was sent: %s", sent.Request)
		}
	}
}

// TestScanTranscription: the answers servers give, read alike: vLLM's
// transcription chunks, OpenAI's transcript.text events with their usage
// in the done event, a whole JSON answer, and whisper-1's usage in
// seconds (no tokens: counted from the text's chunks).
func TestScanTranscription(t *testing.T) {
	for _, c := range []struct {
		name, body string
		stream     bool
		tokens     int
		prompt     int
		source     string
		others     int // events of choices without tokens: a role chunk
	}{
		{"vllm", `data: {"object":"transcription.chunk","choices":[{"delta":{"role":"assistant"}}]}` + "\n\n" +
			`data: {"object":"transcription.chunk","choices":[{"delta":{"content":"Hel"}}]}` + "\n\n" +
			`data: {"object":"transcription.chunk","choices":[{"delta":{"content":"lo"},"finish_reason":"stop"}]}` + "\n\n" +
			`data: {"object":"transcription.chunk","choices":[],"usage":{"prompt_tokens":40,"completion_tokens":2}}` + "\n\ndata: [DONE]\n\n", true, 2, 40, record.SourceUsage, 1},
		{"openai", `data: {"type":"transcript.text.delta","delta":"Hel"}` + "\n\n" + `data: {"type":"transcript.text.delta","delta":"lo"}` + "\n\n" +
			`data: {"type":"transcript.text.delta","delta":" there"}` + "\n\n" +
			`data: {"type":"transcript.text.done","text":"Hello there","usage":{"type":"tokens","input_tokens":14,"output_tokens":3}}` + "\n\n", true, 3, 14, record.SourceUsage, 0},
		{"whole", `{"text":"Hello there","usage":{"type":"tokens","input_tokens":14,"output_tokens":3}}`, false, 3, 14, record.SourceUsage, 0},
		{"seconds", `data: {"type":"transcript.text.delta","delta":"Hi"}` + "\n\n" +
			`data: {"type":"transcript.text.done","text":"Hi","usage":{"type":"duration","seconds":3}}` + "\n\n", true, 1, 0, record.SourceChunks, 0},
	} {
		rec := &record.Record{}
		Measure(strings.NewReader(c.body), nil, rec, record.NewClock(), APITranscription, c.stream, MeasureOptions{})
		if len(rec.OtherEvents) != c.others {
			t.Errorf("%s: %d events without tokens, want %d", c.name, len(rec.OtherEvents), c.others)
		}
		if !rec.OK() || rec.OutputTokens != c.tokens || rec.PromptTokens != c.prompt || rec.TokenSource != c.source {
			t.Errorf("%s: %d tokens from %s, %d prompt tokens (error %+v), want %d from %s and %d", c.name, rec.OutputTokens, rec.TokenSource, rec.PromptTokens, rec.Error, c.tokens, c.source, c.prompt)
		}
	}
}
