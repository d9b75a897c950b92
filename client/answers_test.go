package client

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/tpsbench/tpsbench/record"
)

// Answers at the edges of what the client reads, each pinned from what
// the API (or the SSE specification) says.

// TestAnthropicEdges: an error event is a failure whether or not it
// carries an error object; a budget of one token is sent as one, none as
// the Messages API's required default of 4,096.
func TestAnthropicEdges(t *testing.T) {
	rec := measureAnthropic("event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":4}}}\n\n"+
		"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"a\"}}\n\n"+
		"data: {\"type\":\"error\"}\n\n", true) // a proxy's stream that dropped the event names
	if rec.OK() || rec.Error.Kind != record.KindServerError {
		t.Errorf("an error event without an error object: %+v", rec.Error)
	}
	if rec := measureAnthropic("{\"type\":\"message\",\"content\":[{\"type\":\"text\",\"text\":\"hi\"}],\"stop_reason\":\"end_turn\",\"error\":null}", false); !rec.OK() {
		t.Errorf("an error of null is none: %+v", rec.Error)
	}
	rec = measureAnthropic("event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":4}}}\n\n"+
		"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"a\"},\"error\":{\"type\":\"overloaded_error\",\"message\":\"busy\"}}\n\n", true)
	if rec.OK() || !strings.Contains(rec.Error.Message, "busy") {
		t.Errorf("an event with an error object: %+v", rec.Error)
	}
	budgets := make(chan float64, 2)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			MaxTokens float64 `json:"max_tokens"`
		}
		json.NewDecoder(r.Body).Decode(&body)
		budgets <- body.MaxTokens
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, anthropicStream)
	}))
	defer srv.Close()
	c := newClient(t, srv.URL, func(cfg *HTTPConfig) { cfg.API = APIAnthropic })
	for _, tc := range []struct {
		asked int
		sent  float64
	}{{1, 1}, {0, 4096}} {
		var rec record.Record
		c.Do(context.Background(), &Request{Model: "claude", Prompt: "hi", MaxTokens: tc.asked}, &rec)
		if got := <-budgets; got != tc.sent {
			t.Errorf("a budget of %d sent as max_tokens %v, want %v", tc.asked, got, tc.sent)
		}
	}
}

// TestTranscriptionUsageWithoutOutput: a usage that counts the input
// alone says nothing of the output: the tokens are counted from the
// stream, and the prompt's count is kept.
func TestTranscriptionUsageWithoutOutput(t *testing.T) {
	rec := measured(APITranscription, true, `data: {"type":"transcript.text.delta","delta":"Hi"}`+"\n\n"+
		`data: {"type":"transcript.text.done","text":"Hi","usage":{"type":"tokens","input_tokens":14}}`+"\n\n")
	if !rec.OK() || rec.OutputTokens != 1 || rec.TokenSource != record.SourceChunks || rec.UsageSuspect != "" || rec.PromptTokens != 14 {
		t.Errorf("%+v: %d tokens from %s (suspect %q), prompt %d", rec.Error, rec.OutputTokens, rec.TokenSource, rec.UsageSuspect, rec.PromptTokens)
	}
}

// TestOneByteReads: a stream read a byte at a time is stamped by each
// read's own stamp, the last byte of an event its arrival.
func TestOneByteReads(t *testing.T) {
	clock := record.NewClock()
	body := chunk("a") + chunk("b") + "data: [DONE]\n\n"
	rec := &record.Record{}
	Measure(iotest.OneByteReader(strings.NewReader(body)), steppedStamps(clock.Time(0)), rec, clock, APIChat, true, MeasureOptions{})
	if !rec.OK() || len(rec.Chunks) != 2 {
		t.Fatalf("%+v, %d chunks", rec.Error, len(rec.Chunks))
	}
	// each byte a read a millisecond on: the second chunk came as many
	// ms after the first as its event has bytes
	if got, want := time.Duration(rec.Chunks[1].At-rec.Chunks[0].At), time.Duration(len(chunk("b")))*time.Millisecond; got != want {
		t.Errorf("chunks %v apart, want %v", got, want)
	}
}

// TestErrorBodyShortened: a failed answer's body of text is quoted whole
// up to 200 bytes, and cut with "..." past them.
func TestErrorBodyShortened(t *testing.T) {
	for n, cut := range map[int]bool{200: false, 201: true} {
		msg := errorBody(strings.NewReader(strings.Repeat("x", n)))
		if strings.HasSuffix(msg, "...") != cut || strings.Count(msg, "x") != min(n, 200) {
			t.Errorf("a body of %d bytes quoted as %d bytes, cut %v", n, len(msg), strings.HasSuffix(msg, "..."))
		}
	}
}

// endless is a line that never ends; read counts what was read of it.
type endless struct{ read int }

func (e *endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'a'
	}
	e.read += len(p)
	return len(p), nil
}

// TestEndlessLineRefused: a line past the event bound is refused as soon
// as it is, not read to an end that never comes: no more of it is read
// than the bound and the one buffer that crossed it.
func TestEndlessLineRefused(t *testing.T) {
	rec := &record.Record{}
	line := &endless{}
	Measure(line, nil, rec, record.NewClock(), APIChat, true, MeasureOptions{})
	if rec.OK() || !strings.Contains(rec.Error.Message, "longer than") {
		t.Errorf("%+v", rec.Error)
	}
	if buffer := 4 << 10; line.read > maxEvent+buffer {
		t.Errorf("%d bytes read of an endless line, past the bound of %d and a buffer of %d", line.read, maxEvent, buffer)
	}
}

// TestCutEventNotDispatched: an event whose stream broke before its
// blank line ends it (an error, not the stream's end) is not dispatched.
func TestCutEventNotDispatched(t *testing.T) {
	rec := &record.Record{}
	broken := io.MultiReader(strings.NewReader(chunk("a")+`data: {"choices":[{"delta":{"content":"b"}}]}`+"\n"), iotest.ErrReader(errors.New("connection reset")))
	Measure(broken, nil, rec, record.NewClock(), APIChat, true, MeasureOptions{})
	if rec.OK() || len(rec.Chunks) != 1 || rec.OutputTokens != 1 {
		t.Errorf("%+v, %d chunks, %d tokens: want the first chunk alone, and the failure", rec.Error, len(rec.Chunks), rec.OutputTokens)
	}
}

// TestUsageOfOneTokenWithoutText: an answer whose usage counts one token
// and whose stream showed none (a stop string matched the first) has its
// token at its end.
func TestUsageOfOneTokenWithoutText(t *testing.T) {
	rec := measured(APIChat, true, `data: {"choices":[{"delta":{},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":1}}`+"\n\ndata: [DONE]\n\n")
	if !rec.OK() || rec.OutputTokens != 1 || rec.First != rec.Done || rec.Last != rec.Done {
		t.Errorf("%+v: %d tokens, first %d, last %d, done %d", rec.Error, rec.OutputTokens, rec.First, rec.Last, rec.Done)
	}
}

// TestOtherEventsInOrder: events without a token are kept in the order
// they came, never one before the one before it.
func TestOtherEventsInOrder(t *testing.T) {
	clock := record.NewClock()
	k := 0
	stamps := []time.Duration{5, 3, 9} // the second read stamped before the first
	stamp := func() time.Time {
		at := clock.Time(int64(stamps[min(k, len(stamps)-1)] * time.Millisecond))
		k++
		return at
	}
	body := &oneLineAtATime{lines: []string{`data: {"choices":[{"delta":{"role":"assistant"}}]}` + "\n\n", `data: {"choices":[{"delta":{"content":""}}]}` + "\n\n",
		chunk("a") + "data: [DONE]\n\n"}}
	rec := &record.Record{}
	Measure(body, stamp, rec, clock, APIChat, true, MeasureOptions{})
	if len(rec.OtherEvents) != 2 || rec.OtherEvents[1] < rec.OtherEvents[0] {
		t.Errorf("other events at %v", rec.OtherEvents)
	}
}

// TestWhitespaceEverywhere: JSON's whitespace may stand between any two
// of its tokens; an event written so reads as its compact form does.
func TestWhitespaceEverywhere(t *testing.T) {
	spaced := "data: \t{ \"id\" : \"c1\" , \"choices\" : [ { \"index\" : 0 , \"delta\" : { \"content\" : \"a\" } , \"finish_reason\" : null } , { } ] } \n\n" +
		"data: { \"choices\" : [ ] , \"usage\" : { \"prompt_tokens\" : 3 , \"completion_tokens\" : 1 } } \n\ndata: [DONE]\n\n"
	compact := `data: {"id":"c1","choices":[{"index":0,"delta":{"content":"a"},"finish_reason":null},{}]}` + "\n\n" +
		`data: {"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":1}}` + "\n\ndata: [DONE]\n\n"
	a, b := measured(APIChat, true, spaced), measured(APIChat, true, compact)
	if !a.OK() || !b.OK() || a.OutputTokens != b.OutputTokens || a.PromptTokens != b.PromptTokens || a.ResponseID != b.ResponseID || a.TokenSource != b.TokenSource {
		t.Errorf("spaced %+v (%d tokens, %d prompt, id %q, %s), compact %+v (%d, %d, %q, %s)", a.Error, a.OutputTokens, a.PromptTokens, a.ResponseID, a.TokenSource,
			b.Error, b.OutputTokens, b.PromptTokens, b.ResponseID, b.TokenSource)
	}
}

// TestSecondDrawAnswers: what a second fresh draw found unpinned.
func TestSecondDrawAnswers(t *testing.T) {
	// Ollama's thinking is reasoning, its content the answer
	rec := measured(APIOllama, true, `{"message":{"role":"assistant","content":"","thinking":"hmm"},"done":false}`+"\n"+
		`{"message":{"role":"assistant","content":"a"},"done":false}`+"\n"+`{"message":{"role":"assistant","content":""},"done":true,"done_reason":"stop","eval_count":2}`+"\n")
	if !rec.OK() || len(rec.Chunks) != 2 || rec.Chunks[0].Kind != record.ChunkReasoning || rec.Chunks[1].Kind != record.ChunkAnswer {
		t.Errorf("%+v: chunks %+v", rec.Error, rec.Chunks)
	}
	// a transcription's usage of 0 output tokens is a claim, and one its
	// streamed text belies
	rec = measured(APITranscription, true, `data: {"type":"transcript.text.delta","delta":"Hi"}`+"\n\n"+
		`data: {"type":"transcript.text.done","text":"Hi","usage":{"type":"tokens","input_tokens":14,"output_tokens":0}}`+"\n\n")
	if rec.UsageSuspect == "" || rec.OutputTokens != 1 {
		t.Errorf("a usage of 0 output tokens for a streamed word: %d tokens, suspect %q", rec.OutputTokens, rec.UsageSuspect)
	}
	// Ollama's /api/chat takes messages, as the chat APIs do; the prompt
	// APIs a prompt (what a /tokenize count asks for the same)
	for api, chat := range map[string]bool{APIChat: true, APIOllama: true, APICompletions: false, APILlamaCpp: false, APITGI: false} {
		if protocolOf(api).chat != chat {
			t.Errorf("%s: takes messages %v, want %v", api, protocolOf(api).chat, chat)
		}
	}
}

// TestApportionOneReasoningToken: one reasoning token known over a
// reasoning chunk and two answer chunks: the reasoning chunk takes it,
// the answer chunks the rest.
func TestApportionOneReasoningToken(t *testing.T) {
	chunks := []record.Chunk{{Tokens: 1, Kind: record.ChunkReasoning}, {Tokens: 1}, {Tokens: 1}}
	apportionKinds(chunks, []int{1, 1, 1}, 4, 1)
	if chunks[0].Tokens != 1 || chunks[1].Tokens+chunks[2].Tokens != 3 {
		t.Errorf("chunks %+v", chunks)
	}
}

// TestTokenizerAndChunks: a client tokenizer counts an answer of chunks
// (its count the source when it is not fewer than the chunks); an answer
// of no chunks is counted by nothing, and names no tokenizer.
func TestTokenizerAndChunks(t *testing.T) {
	words := TextCounter{Name: "words", Count: func(s string) int { return len(strings.Fields(s)) }}
	one := &record.Record{}
	Measure(strings.NewReader(chunk("one two three")+"data: [DONE]\n\n"), nil, one, record.NewClock(), APIChat, true, MeasureOptions{Tokenizer: words})
	if !one.OK() || one.OutputTokens != 3 || one.TokenSource != record.SourceTokenizer || one.Tokenizer != "words" {
		t.Errorf("one chunk of three words: %+v, %d tokens from %s (%q)", one.Error, one.OutputTokens, one.TokenSource, one.Tokenizer)
	}
	none := &record.Record{}
	Measure(strings.NewReader(`data: {"choices":[{"delta":{},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":1}}`+"\n\ndata: [DONE]\n\n"), nil, none,
		record.NewClock(), APIChat, true, MeasureOptions{Tokenizer: words})
	if none.Tokenizer != "" || none.TokenizerTokens != 0 || none.TokenSource != record.SourceUsage {
		t.Errorf("no chunks: tokenizer %q counted %d, source %s", none.Tokenizer, none.TokenizerTokens, none.TokenSource)
	}
}

// TestEmptyAnswerWithATokenizer: an answer of no chunk and no usage is
// empty whatever tokenizer is set: its count is no tokenizer's.
func TestEmptyAnswerWithATokenizer(t *testing.T) {
	words := TextCounter{Name: "words", Count: func(s string) int { return len(strings.Fields(s)) }}
	rec := &record.Record{}
	Measure(strings.NewReader(`data: {"choices":[{"delta":{},"finish_reason":"stop"}]}`+"\n\ndata: [DONE]\n\n"), nil, rec, record.NewClock(), APIChat, true, MeasureOptions{Tokenizer: words})
	if rec.OK() || rec.Error.Kind != record.KindEmpty || rec.TokenSource == record.SourceTokenizer {
		t.Errorf("%+v, source %s", rec.Error, rec.TokenSource)
	}
}

// TestThirdDrawAnswers: what a third fresh draw found unpinned.
func TestThirdDrawAnswers(t *testing.T) {
	// a whole answer ends when its last bytes arrived, by the stamps
	clock := record.NewClock()
	rec := &record.Record{}
	Measure(strings.NewReader(`{"choices":[{"message":{"content":"hi"},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":1}}`),
		steppedStamps(clock.Time(0)), rec, clock, APIChat, false, MeasureOptions{})
	if !rec.OK() || rec.Done != int64(time.Millisecond) {
		t.Errorf("%+v: done %d, want at the read's stamp, 1 ms", rec.Error, rec.Done)
	}
	// TGI's token text is the answer, not reasoning
	rec = measured(APITGI, true, `data: {"token":{"id":1,"text":"a","special":false}}`+"\n\n"+
		`data: {"token":{"id":2,"text":"b","special":false},"generated_text":"ab","details":{"finish_reason":"length","generated_tokens":2}}`+"\n\n")
	if !rec.OK() || len(rec.Chunks) != 2 || rec.Chunks[0].Kind != record.ChunkAnswer || rec.ReasoningTokens != 0 {
		t.Errorf("%+v: chunks %+v", rec.Error, rec.Chunks)
	}
	// an id of one character is the answer's id
	if rec := measured(APIChat, true, `data: {"id":"x","choices":[{"delta":{"content":"a"}}]}`+"\n\ndata: [DONE]\n\n"); rec.ResponseID != "x" {
		t.Errorf("response id %q", rec.ResponseID)
	}
	// llama.cpp's timings of up to 10^12 ms are durations
	rec = measured(APILlamaCpp, true, `data: {"content":"a","stop":false}`+"\n\n"+
		`data: {"content":"","stop":true,"stop_type":"limit","tokens_predicted":1,"timings":{"prompt_ms":1e12,"predicted_ms":2}}`+"\n\n")
	if rec.Server == nil || rec.Server.PromptEvalNS != 1e18 {
		t.Errorf("server timing %+v", rec.Server)
	}
	// two audio files are two, for a transcription that takes one
	wav := Media{MIME: "audio/wav", Data: []byte{1}}
	if err := oneAudio([]Media{wav, wav}); err == nil || !strings.Contains(err.Error(), "2 media of which 2 audio") {
		t.Errorf("two audio files: %v", err)
	}
	// a form whose boundary is past the 70 characters a boundary may have
	// is no form: nothing is read of it
	long := strings.Repeat("b", 80)
	form := "--" + long + "\r\nContent-Disposition: form-data; name=\"model\"\r\n\r\nwhisper\r\n--" + long + "--\r\n"
	if got := readProxiedForm([]byte(form), Proxied{}); got.Model != "" {
		t.Errorf("a boundary of 80 characters read as a form: model %q", got.Model)
	}
	// one of 70, the most it may have, is read
	long = strings.Repeat("b", 70)
	form = "--" + long + "\r\nContent-Disposition: form-data; name=\"model\"\r\n\r\nwhisper\r\n--" + long + "--\r\n"
	if got := readProxiedForm([]byte(form), Proxied{}); got.Model != "whisper" {
		t.Errorf("a boundary of 70 characters: model %q", got.Model)
	}
	// a whole answer's bound is 256 MiB (see maxWholeAnswer)
	if maxWholeAnswer != 256<<20 {
		t.Errorf("the whole answer's bound is %d bytes", maxWholeAnswer)
	}
	// Ollama asks for no budget of 0 tokens: without one it generates as usual
	if body := ollamaBody(&HTTPConfig{}, &Request{Model: "m", Prompt: "p"}); body["options"] != nil {
		if opts, _ := body["options"].(map[string]any); opts["num_predict"] != nil {
			t.Errorf("options %v", opts)
		}
	}
}
