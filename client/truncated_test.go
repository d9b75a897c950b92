package client

import (
	"encoding/json"
	"testing"
)

// richEvents are events of every API with every field its reader takes.
var richEvents = []struct{ api, data string }{
	{APIChat, `{"id":"c1","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":"a","reasoning_content":"r","tool_calls":[{"index":0,"function":{"name":"f","arguments":"{}"}}]},"finish_reason":"stop"}],` +
		`"usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5,"prompt_tokens_details":{"cached_tokens":1},"completion_tokens_details":{"reasoning_tokens":1}},"error":null}`},
	{APICompletions, `{"id":"c2","choices":[{"index":0,"text":"a","finish_reason":"length"}],"usage":{"prompt_tokens":3,"completion_tokens":1}}`},
	{APIAnthropic, `{"type":"message_start","message":{"id":"msg","type":"message","role":"assistant","content":[],"model":"m","stop_reason":null,"usage":{"input_tokens":9,"cache_read_input_tokens":3,"cache_creation_input_tokens":1,"output_tokens":1}}}`},
	{APIAnthropic, `{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"a\""}}`},
	{APIAnthropic, `{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":6}}`},
	{APIAnthropic, `{"type":"message","content":[{"type":"text","text":"hi"},{"type":"thinking","thinking":"t"},{"type":"tool_use","id":"t","name":"f","input":{"a":1}}],"stop_reason":"tool_use","usage":{"input_tokens":2,"output_tokens":3}}`},
	{APIResponses, `{"type":"response.completed","response":{"id":"r","status":"incomplete","incomplete_details":{"reason":"max_output_tokens"},"output":[{"type":"message","content":[{"type":"output_text","text":"hi"}]},{"type":"reasoning","summary":[{"type":"summary_text","text":"s"}]},{"type":"function_call","arguments":"{}"}],` +
		`"usage":{"input_tokens":4,"input_tokens_details":{"cached_tokens":1},"output_tokens":2,"output_tokens_details":{"reasoning_tokens":1},"total_tokens":6}}}`},
	{APIResponses, `{"type":"response.output_text.delta","delta":"a"}`},
	{APILlamaCpp, `{"content":"a","stop":true,"stop_type":"eos","id_slot":0,"tokens_predicted":3,"tokens_evaluated":5,"timings":{"prompt_ms":10.5,"predicted_ms":20.25,"prompt_n":5,"predicted_n":3}}`},
	{APIOllama, `{"model":"m","message":{"role":"assistant","content":"a","thinking":"t","tool_calls":[{"function":{"name":"f","arguments":{}}}]},"done":true,"done_reason":"stop","total_duration":5,"load_duration":1,"prompt_eval_count":3,"prompt_eval_duration":2,"eval_count":4,"eval_duration":3}`},
	{APITGI, `{"index":1,"token":{"id":1,"text":"a","logprob":-0.1,"special":false},"generated_text":"a","details":{"finish_reason":"eos_token","generated_tokens":1,"input_length":3}}`},
	{APISGLang, `{"text":"ab","output_ids":[1,2],"meta_info":{"id":"s","finish_reason":{"type":"length","length":2},"prompt_tokens":3,"completion_tokens":2,"cached_tokens":1}}`},
	{APITranscription, `{"type":"transcript.text.done","text":"hi","usage":{"type":"tokens","input_tokens":14,"input_token_details":{"audio_tokens":14},"output_tokens":3}}`},
	{APIEmbeddings, `{"object":"list","data":[{"object":"embedding","index":0,"embedding":[0.1,-2e-3]}],"model":"m","usage":{"prompt_tokens":2,"total_tokens":2}}`},
	{APIRerank, `{"id":"r","results":[{"index":0,"relevance_score":0.5,"document":{"text":"d"}}],"usage":{"prompt_tokens":4,"total_tokens":4}}`},
}

// TestTruncatedEvents: every API's reader refuses each of its events cut
// short at any byte, whichever field the cut falls in: an answer broken
// off never reads as a whole one, nor as the fields before the break.
func TestTruncatedEvents(t *testing.T) {
	for _, ev := range richEvents {
		if !json.Valid([]byte(ev.data)) {
			t.Fatalf("%s: the sample is not JSON: %s", ev.api, ev.data)
		}
		var whole chunkInfo
		if err := protocolOf(ev.api).scanner(&streamState{})([]byte(ev.data), &whole); err != nil {
			t.Fatalf("%s: the whole event: %v", ev.api, err)
		}
		for k := 1; k < len(ev.data); k++ {
			var ci chunkInfo
			if err := protocolOf(ev.api).scanner(&streamState{})([]byte(ev.data[:k]), &ci); err == nil {
				t.Errorf("%s cut at byte %d (%q) read as whole", ev.api, k, ev.data[max(0, k-12):k])
				break
			}
		}
	}
}

// TestEventsNotObjects: an event that is no JSON object (an array, a
// string, a number, nothing) is refused by every API's reader.
func TestEventsNotObjects(t *testing.T) {
	apis := map[string]bool{}
	for _, ev := range richEvents {
		apis[ev.api] = true
	}
	for api := range apis {
		for _, data := range []string{`[]`, `"text"`, `42`, ``, `null`} {
			var ci chunkInfo
			if err := protocolOf(api).scanner(&streamState{})([]byte(data), &ci); err == nil {
				t.Errorf("%s: %q read as an event", api, data)
			}
		}
	}
}
