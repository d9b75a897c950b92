package engine_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/tpsbench/tpsbench/internal/promcheck"

	"github.com/tpsbench/tpsbench/client"
	"github.com/tpsbench/tpsbench/engine"
	"github.com/tpsbench/tpsbench/record"
	"github.com/tpsbench/tpsbench/servermetrics"
)

func start(t *testing.T) (*engine.Engine, string) {
	t.Helper()
	e, err := engine.Load(engine.Options{Model: "tiny", Format: "q8_0", Threads: 2, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(e.Handler)
	t.Cleanup(func() { srv.Close(); e.Close() })
	return e, srv.URL
}

func post(t *testing.T, url, body string) (*http.Response, string) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

func TestStreamedChatWithUsage(t *testing.T) {
	_, url := start(t)
	// Measured by our own client, as tpsbench run does.
	cl, err := client.NewHTTP(client.HTTPConfig{URL: url, Stream: true, IgnoreEOS: true, Concurrency: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	var rec record.Record
	cl.Do(context.Background(), &client.Request{Model: "tpsbench-tiny-q8_0", Prompt: "Explain AI", MaxTokens: 20}, &rec)
	if rec.Error != nil {
		t.Fatal(rec.Error)
	}
	if rec.OutputTokens != 20 || rec.TokenSource != record.SourceUsage || rec.PromptTokens == 0 || rec.FinishReason != "length" {
		t.Fatalf("record %+v", rec)
	}
}

func TestCompletionsWhole(t *testing.T) {
	_, url := start(t)
	resp, body := post(t, url+"/v1/completions", `{"prompt":"the cat","max_tokens":7,"ignore_eos":true,"temperature":0}`)
	if resp.StatusCode != 200 {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
	var out struct {
		Choices []struct {
			Text         string `json:"text"`
			FinishReason string `json:"finish_reason"`
		} `json:"choices"`
		Usage struct {
			CompletionTokens int `json:"completion_tokens"`
		} `json:"usage"`
	}
	if err := json.Unmarshal([]byte(body), &out); err != nil {
		t.Fatal(err)
	}
	if out.Usage.CompletionTokens != 7 || out.Choices[0].FinishReason != "length" || out.Choices[0].Text == "" {
		t.Fatalf("%s", body)
	}
	// Greedy decoding is deterministic.
	_, again := post(t, url+"/v1/completions", `{"prompt":"the cat","max_tokens":7,"ignore_eos":true,"temperature":0}`)
	var out2 = out
	json.Unmarshal([]byte(again), &out2)
	if out2.Choices[0].Text != out.Choices[0].Text {
		t.Errorf("greedy outputs differ: %q vs %q", out.Choices[0].Text, out2.Choices[0].Text)
	}
	// Seeded sampling too.
	_, a := post(t, url+"/v1/completions", `{"prompt":"x","max_tokens":12,"ignore_eos":true,"temperature":0.9,"top_p":0.9,"top_k":50,"seed":5}`)
	_, b := post(t, url+"/v1/completions", `{"prompt":"x","max_tokens":12,"ignore_eos":true,"temperature":0.9,"top_p":0.9,"top_k":50,"seed":5}`)
	if textOf(a) != textOf(b) {
		t.Errorf("same seed, different text: %q vs %q", textOf(a), textOf(b))
	}
}

func textOf(body string) string {
	var out struct {
		Choices []struct{ Text string } `json:"choices"`
	}
	json.Unmarshal([]byte(body), &out)
	if len(out.Choices) == 0 {
		return "<none>"
	}
	return out.Choices[0].Text
}

func TestStopString(t *testing.T) {
	_, url := start(t)
	_, body := post(t, url+"/v1/completions", `{"prompt":"a","max_tokens":40,"ignore_eos":true,"temperature":0}`)
	full := textOf(body)
	if len(full) < 6 {
		t.Fatalf("short text %q", full)
	}
	stop := full[3:6]
	_, body = post(t, url+"/v1/completions", `{"prompt":"a","max_tokens":40,"ignore_eos":true,"temperature":0,"stop":[`+strings.TrimSpace(mustJSON(stop))+`]}`)
	got := textOf(body)
	if got != full[:strings.Index(full, stop)] || !strings.Contains(body, `"finish_reason":"stop"`) {
		t.Fatalf("stop %q: got %q from %q (%s)", stop, got, full, body)
	}
}

func mustJSON(v any) string { b, _ := json.Marshal(v); return string(b) }

// TestLogprobs asks for log-probabilities in both APIs, streamed and
// whole: one entry per generated token, each at most 0, its alternatives
// as many as asked, most likely first, the chosen token among them at
// temperature 0 (greedy picks the most likely), and the entries' text the
// generated text.
func TestLogprobs(t *testing.T) {
	_, url := start(t)
	type alt struct {
		Token   string  `json:"token"`
		Logprob float32 `json:"logprob"`
		Bytes   []int   `json:"bytes"`
	}
	type entry struct {
		alt
		Top []alt `json:"top_logprobs"`
	}
	check := func(name string, text string, entries []entry, tokens int) {
		t.Helper()
		if len(entries) != tokens {
			t.Fatalf("%s: %d entries for %d tokens", name, len(entries), tokens)
		}
		var joined strings.Builder
		for i, e := range entries {
			joined.WriteString(e.Token)
			if e.Logprob > 0 || len(e.Top) != 3 || e.Top[0].Logprob < e.Top[1].Logprob || e.Top[1].Logprob < e.Top[2].Logprob {
				t.Errorf("%s: entry %d %+v", name, i, e)
			}
			if e.Top[0].Logprob != e.Logprob {
				t.Errorf("%s: entry %d: greedy chose %q (%v), not the likeliest %q (%v)", name, i, e.Token, e.Logprob, e.Top[0].Token, e.Top[0].Logprob)
			}
		}
		if joined.String() != text {
			t.Errorf("%s: entries spell %q, the text is %q", name, joined.String(), text)
		}
	}
	// chat, whole
	_, body := post(t, url+"/v1/chat/completions", `{"messages":[{"role":"user","content":"hi"}],"max_tokens":6,"ignore_eos":true,"temperature":0,"logprobs":true,"top_logprobs":3}`)
	var whole struct {
		Choices []struct {
			Message  struct{ Content string }  `json:"message"`
			Logprobs struct{ Content []entry } `json:"logprobs"`
		} `json:"choices"`
	}
	if json.Unmarshal([]byte(body), &whole) != nil || len(whole.Choices) != 1 {
		t.Fatalf("chat: %s", body)
	}
	check("chat", whole.Choices[0].Message.Content, whole.Choices[0].Logprobs.Content, 6)
	// chat, streamed: the entries come with the chunks
	resp, err := http.Post(url+"/v1/chat/completions", "application/json", strings.NewReader(`{"messages":[{"role":"user","content":"hi"}],"max_tokens":6,"ignore_eos":true,"temperature":0,"stream":true,"logprobs":true,"top_logprobs":3}`))
	if err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	var entries []entry
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok || data == "[DONE]" {
			continue
		}
		var chunk struct {
			Choices []struct {
				Delta    struct{ Content string }   `json:"delta"`
				Logprobs *struct{ Content []entry } `json:"logprobs"`
			} `json:"choices"`
		}
		if err := json.Unmarshal([]byte(data), &chunk); err != nil || len(chunk.Choices) != 1 {
			t.Fatalf("chunk %s", data)
		}
		text.WriteString(chunk.Choices[0].Delta.Content)
		if chunk.Choices[0].Logprobs != nil {
			entries = append(entries, chunk.Choices[0].Logprobs.Content...)
		}
	}
	resp.Body.Close()
	check("chat stream", text.String(), entries, 6)
	// completions: parallel lists
	_, body = post(t, url+"/v1/completions", `{"prompt":"Once upon","max_tokens":5,"ignore_eos":true,"temperature":0,"logprobs":3}`)
	var comp struct {
		Choices []struct {
			Text     string
			Logprobs struct {
				Tokens        []string             `json:"tokens"`
				TokenLogprobs []float32            `json:"token_logprobs"`
				TopLogprobs   []map[string]float32 `json:"top_logprobs"`
				TextOffset    []int                `json:"text_offset"`
			} `json:"logprobs"`
		} `json:"choices"`
	}
	if json.Unmarshal([]byte(body), &comp) != nil || len(comp.Choices) != 1 {
		t.Fatalf("completions: %s", body)
	}
	lp := comp.Choices[0].Logprobs
	if len(lp.Tokens) != 5 || len(lp.TokenLogprobs) != 5 || len(lp.TopLogprobs) != 5 || len(lp.TextOffset) != 5 ||
		strings.Join(lp.Tokens, "") != comp.Choices[0].Text || lp.TextOffset[0] != 0 || lp.TextOffset[1] != len(lp.Tokens[0]) {
		t.Errorf("completions logprobs: %s", body)
	}
	for i, top := range lp.TopLogprobs {
		if len(top) == 0 || len(top) > 3 || top[lp.Tokens[i]] != lp.TokenLogprobs[i] {
			t.Errorf("completions: step %d: %v for %q (%v)", i, top, lp.Tokens[i], lp.TokenLogprobs[i])
		}
	}
}

func TestBadRequests(t *testing.T) {
	_, url := start(t)
	cases := []struct {
		path, body, param string
		status            int
	}{
		{"/v1/completions", `{`, "", 0},
		{"/v1/completions", `{"max_tokens":5}`, "prompt", 0},
		{"/v1/completions", `{"prompt":"a","max_tokens":-1}`, "max_tokens", 0},
		{"/v1/completions", `{"prompt":"a","max_tokens":"ten"}`, "max_tokens", 0},
		{"/v1/completions", `{"prompt":"a","max_tokens":100000}`, "max_tokens", 0},
		{"/v1/completions", `{"prompt":"a","temperature":-1}`, "temperature", 0},
		{"/v1/completions", `{"prompt":"a","top_p":2}`, "top_p", 0},
		{"/v1/completions", `{"prompt":"a","model":"gpt-9"}`, "model", 404}, // as OpenAI and vLLM answer
		{"/v1/completions", `{"prompt":"a","stop":5}`, "stop", 0},
		{"/v1/completions", `{"prompt":"` + strings.Repeat("word ", 400) + `"}`, "prompt", 0},
		{"/v1/chat/completions", `{"messages":[]}`, "messages", 0},
		// found driving serve with the OpenAI SDK: each refused by name
		{"/v1/chat/completions", `{"messages":[{"content":"hi"}]}`, "messages[0].role", 0},
		{"/v1/chat/completions", `{"messages":[{"role":"wizard","content":"hi"}]}`, "messages[0].role", 0},
		{"/v1/chat/completions", `{"messages":[{"role":"user"}]}`, "messages[0].content", 0},
		{"/v1/chat/completions", `{"messages":[{"role":"user","content":"hi"}],"tools":[{"type":"function"}]}`, "tools", 0},
		{"/v1/chat/completions", `{"messages":[{"role":"user","content":"hi"}],"response_format":{"type":"json_object"}}`, "response_format", 0},
		{"/v1/chat/completions", `{"messages":[{"role":"user","content":"hi"}],"logprobs":1}`, "logprobs", 0},
		{"/v1/chat/completions", `{"messages":[{"role":"user","content":"hi"}],"top_logprobs":3}`, "top_logprobs", 0},
		{"/v1/chat/completions", `{"messages":[{"role":"user","content":"hi"}],"logprobs":true,"top_logprobs":21}`, "top_logprobs", 0},
		{"/v1/completions", `{"prompt":"a","logprobs":true}`, "logprobs", 0},
		{"/v1/completions", `{"prompt":"a","logprobs":2,"top_logprobs":2}`, "top_logprobs", 0},
		{"/v1/completions", `{"prompt":"a","echo":true}`, "echo", 0},
		{"/v1/completions", `{"prompt":"a","n":2}`, "n", 0},
		{"/v1/completions", `{"prompt":["a","b"]}`, "prompt", 0},
		{"/v1/completions", `{"prompt":[1,2,100000]}`, "prompt", 0},
		{"/tokenize", `{"messages":[{"role":"user"}]}`, "messages[0].content", 0},
		// a budget past the context (256) is refused in chat as in
		// completions, as vLLM does: it was clipped, the answer stopping
		// short as "length"
		{"/v1/chat/completions", `{"messages":[{"role":"user","content":"hi"}],"max_tokens":250}`, "max_tokens", 0},
		{"/v1/chat/completions", `{"messages":[{"role":"user","content":"hi"}],"max_completion_tokens":250}`, "max_tokens", 0},
		{"/v1/chat/completions", `{"messages":[{"role":"assistant","content":null}]}`, "messages[0].content", 0},
		{"/v1/chat/completions", `{"messages":[{"role":"user","content":null,"tool_calls":[{"id":"c"}]}]}`, "messages[0].content", 0},
	}
	for _, c := range cases {
		resp, body := post(t, url+c.path, c.body)
		var e struct {
			Error struct {
				Message string  `json:"message"`
				Param   *string `json:"param"`
			} `json:"error"`
		}
		if c.status == 0 {
			c.status = 400
		}
		if resp.StatusCode != c.status || json.Unmarshal([]byte(body), &e) != nil || e.Error.Message == "" {
			t.Errorf("%s %.60s: %d %s", c.path, c.body, resp.StatusCode, body)
			continue
		}
		if c.param != "" && (e.Error.Param == nil || *e.Error.Param != c.param) {
			t.Errorf("%.60s: param %v, want %q", c.body, e.Error.Param, c.param)
		}
	}
	// Served: a chat without a budget (it gets the room its prompt
	// leaves), and an agent transcript whose assistant turn called a tool
	// with no content, as OpenAI's API takes it.
	for _, body := range []string{
		`{"messages":[{"role":"user","content":"hi"}]}`,
		`{"messages":[{"role":"user","content":"weather?"},{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}}]},{"role":"tool","tool_call_id":"call_1","content":"sunny"}],"max_tokens":3}`,
	} {
		if resp, got := post(t, url+"/v1/chat/completions", body); resp.StatusCode != 200 {
			t.Errorf("%.60s: %d %s", body, resp.StatusCode, got)
		}
	}
	// Still serving.
	if resp, _ := post(t, url+"/v1/completions", `{"prompt":"a","max_tokens":2}`); resp.StatusCode != 200 {
		t.Errorf("server stopped answering after bad requests: %d", resp.StatusCode)
	}
	if r, err := http.Get(url + "/health"); err != nil || r.StatusCode != 200 {
		t.Errorf("health: %v", err)
	}
	if _, body := get(t, url+"/v1/models"); !strings.Contains(body, "tpsbench-tiny-q8_0") {
		t.Errorf("models: %s", body)
	}
}

func get(t *testing.T, url string) (*http.Response, string) {
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

func TestDisconnectFreesSequence(t *testing.T) {
	// a model slow enough that 2,000 tokens take seconds: the client leaves
	// long before the end
	e, err := engine.Load(engine.Options{Model: "15m", Format: "q4_0", Threads: 2, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(e.Handler)
	defer func() { srv.Close(); e.Close() }()
	url := srv.URL
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "POST", url+"/v1/completions", strings.NewReader(`{"prompt":"a","max_tokens":2000,"ignore_eos":true,"stream":true}`))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(resp.Body)
	for i := 0; i < 3 && sc.Scan(); i++ {
	}
	// the scheduler publishes its counts after each step
	for wait := time.Now().Add(5 * time.Second); e.Sched.Stats().Running != 1; {
		if time.Now().After(wait) {
			t.Fatalf("running %d, want 1", e.Sched.Stats().Running)
		}
		time.Sleep(5 * time.Millisecond)
	}
	cancel()
	resp.Body.Close()
	deadline := time.Now().Add(5 * time.Second)
	for e.Sched.Stats().Running != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("sequence still running after the client left: %+v", e.Sched.Stats())
		}
		time.Sleep(10 * time.Millisecond)
	}
	// /metrics counts it as vLLM does, an aborted request, its cache freed
	for {
		_, body := get(t, url+"/metrics")
		if strings.Contains(body, `finished_reason="abort"} 1`) && strings.Contains(body, "vllm:kv_cache_usage_perc{") &&
			strings.Contains(body, "vllm:num_requests_running{model_name=\"tpsbench-15m-q4_0\"} 0") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("/metrics does not count the abort:\n%s", body)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestConcurrentRequestsDoNotCorruptEachOther(t *testing.T) {
	_, url := start(t)
	body := `{"prompt":"once upon","max_tokens":30,"ignore_eos":true,"temperature":0}`
	_, alone := post(t, url+"/v1/completions", body)
	want := textOf(alone)
	results := make(chan string, 6)
	for i := 0; i < 6; i++ {
		go func() {
			resp, err := http.Post(url+"/v1/completions", "application/json", strings.NewReader(body))
			if err != nil {
				results <- err.Error()
				return
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			results <- textOf(string(b))
		}()
	}
	for i := 0; i < 6; i++ {
		if got := <-results; got != want {
			t.Errorf("concurrent result %q differs from %q", got, want)
		}
	}
}

func TestMetricsEndpoint(t *testing.T) {
	_, url := start(t)
	post(t, url+"/v1/completions", `{"prompt":"a b c","max_tokens":5,"ignore_eos":true}`)
	post(t, url+"/v1/completions", `{"prompt":"a","max_tokens":3,"ignore_eos":true,"stream":true}`)
	_, body := get(t, url+"/metrics")
	for _, want := range []string{
		`vllm:generation_tokens_total{model_name="tpsbench-tiny-q8_0"} 8`,
		`vllm:request_success_total{model_name="tpsbench-tiny-q8_0",finished_reason="length"} 2`,
		`vllm:time_to_first_token_seconds_count{model_name="tpsbench-tiny-q8_0"} 2`,
		`vllm:inter_token_latency_seconds_count{model_name="tpsbench-tiny-q8_0"} 6`,
		`vllm:num_requests_running{model_name="tpsbench-tiny-q8_0"} 0`,
		`# TYPE vllm:e2e_request_latency_seconds histogram`,
		// up to vLLM's own top bounds: a 30 s TTFT is not past the scale
		`vllm:time_to_first_token_seconds_bucket{model_name="tpsbench-tiny-q8_0",le="2560"} 2`,
		`vllm:inter_token_latency_seconds_bucket{model_name="tpsbench-tiny-q8_0",le="80"} 6`,
		`vllm:e2e_request_latency_seconds_bucket{model_name="tpsbench-tiny-q8_0",le="7680"} 2`,
		// where each first token waited: one of each request
		`vllm:request_queue_time_seconds_count{model_name="tpsbench-tiny-q8_0"} 2`,
		`vllm:request_prefill_time_seconds_count{model_name="tpsbench-tiny-q8_0"} 2`,
		`tpsbench_request_prefill_steps_seconds_count{model_name="tpsbench-tiny-q8_0"} 2`,
		// one after the other, each prompt's step held no other token
		`tpsbench_request_prefill_shared_tokens_total{model_name="tpsbench-tiny-q8_0"} 0`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %q:\n%s", want, body)
		}
	}
	// One request after the other: each a step of its whole prompt, then
	// a step of one token for each token after its first (4, then 2).
	for _, want := range []string{
		`vllm:iteration_tokens_total_bucket{model_name="tpsbench-tiny-q8_0",le="1"} 6` + "\n",
		`vllm:iteration_tokens_total_bucket{model_name="tpsbench-tiny-q8_0",le="8"} 8` + "\n",
		`vllm:iteration_tokens_total_count{model_name="tpsbench-tiny-q8_0"} 8` + "\n",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %q:\n%s", want, body)
		}
	}
	// clean to Prometheus's linter, but for the names spelled as vLLM does
	promcheck.Lint(t, []byte(body), func(name string) bool { return strings.HasPrefix(name, "vllm:") })
	smp, err := servermetrics.Parse(strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if sum, prompts := smp["vllm:iteration_tokens_total_sum"], smp["vllm:prompt_tokens_total"]; prompts == 0 || sum != prompts+4+2 {
		t.Errorf("tokens through the steps %g, want the prompts' %g + 6", sum, prompts)
	}
	// the prefill's steps are part of the time from joining the batch to
	// the first token, which is part of the TTFT
	steps, prefill, ttft := smp["tpsbench_request_prefill_steps_seconds_sum"], smp["vllm:request_prefill_time_seconds_sum"], smp["vllm:time_to_first_token_seconds_sum"]
	if !(steps > 0 && steps <= prefill && prefill+smp["vllm:request_queue_time_seconds_sum"] <= ttft) {
		t.Errorf("prefill steps %g s, prefill %g s, queued %g s, TTFT %g s", steps, prefill, smp["vllm:request_queue_time_seconds_sum"], ttft)
	}
}

func TestAPIKey(t *testing.T) {
	e, url := start(t)
	e.Handler.APIKey = "sk-test-123"
	resp, body := post(t, url+"/v1/completions", `{"prompt":"a","max_tokens":2}`)
	if resp.StatusCode != 401 || !strings.Contains(body, "API key") {
		t.Fatalf("no key: %d %s", resp.StatusCode, body)
	}
	req, _ := http.NewRequest("POST", url+"/v1/completions", strings.NewReader(`{"prompt":"a","max_tokens":2}`))
	req.Header.Set("Authorization", "Bearer sk-test-123")
	r2, err := http.DefaultClient.Do(req)
	if err != nil || r2.StatusCode != 200 {
		t.Fatalf("with the key: %v %v", r2, err)
	}
	r2.Body.Close()
	if r, _ := get(t, url+"/health"); r.StatusCode != 200 {
		t.Errorf("health needs no key, got %d", r.StatusCode)
	}
}

// TestThousandConnections: 1,000 streaming requests at once, half from
// clients that never read their response and half from clients that leave
// after the first bytes. The server keeps answering its health probe,
// frees every sequence, and its memory stays bounded.
func TestThousandConnections(t *testing.T) {
	if testing.Short() {
		t.Skip("load test")
	}
	e, url := start(t)
	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	addr := strings.TrimPrefix(url, "http://")
	body := `{"prompt":"a b c","max_tokens":40,"ignore_eos":true,"stream":true}`
	req := fmt.Sprintf("POST /v1/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
	var conns []net.Conn
	for i := 0; i < 1000; i++ {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatalf("connection %d: %v", i, err)
		}
		if _, err := c.Write([]byte(req)); err != nil {
			t.Fatal(err)
		}
		if i%2 == 1 { // leaves after the first bytes
			c.SetReadDeadline(time.Now().Add(5 * time.Second))
			c.Read(make([]byte, 64))
			c.Close()
			continue
		}
		conns = append(conns, c) // never reads
	}
	probe := http.Client{Timeout: 2 * time.Second}
	start := time.Now()
	resp, err := probe.Get(url + "/health")
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("health probe under load: %v", err)
	}
	resp.Body.Close()
	t.Logf("health probe answered in %v with %d silent clients", time.Since(start), len(conns))
	for _, c := range conns {
		c.Close()
	}
	deadline := time.Now().Add(60 * time.Second)
	for st := e.Sched.Stats(); st.Running != 0 || st.Waiting != 0; st = e.Sched.Stats() {
		if time.Now().After(deadline) {
			t.Fatalf("sequences still held after every client left: %+v", st)
		}
		time.Sleep(20 * time.Millisecond)
	}
	var after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&after)
	grew := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	t.Logf("heap grew by %d KB over 1,000 connections", grew/1024)
	if grew > 64<<20 {
		t.Errorf("heap grew by %d MB", grew>>20)
	}
}

// TestBadOptions: options a caller can get wrong fail with a message
// before anything is loaded.
func TestBadOptions(t *testing.T) {
	for _, opts := range []engine.Options{
		{Model: "tiny", Threads: -1},
		{Model: "tiny", Threads: engine.MaxThreads + 1},
		{Model: "tiny", Format: "q5_k"},
		{Model: "no-such-shape"},
		{Model: filepath.Join(t.TempDir(), "missing.gguf")},
	} {
		if e, err := engine.Load(opts); err == nil {
			e.Close()
			t.Errorf("%+v: loaded", opts)
		}
	}
}

// TestServerAsTheOpenAISDKSeesIt: what driving serve with the official
// OpenAI SDK found: a completions stream's usage chunk typed as a chat
// chunk, no GET /v1/models/{id}, prompts as token ids refused.
func TestServerAsTheOpenAISDKSeesIt(t *testing.T) {
	e, url := start(t)
	_, body := post(t, url+"/v1/completions", `{"prompt":"a","max_tokens":2,"stream":true,"stream_options":{"include_usage":true}}`)
	if strings.Contains(body, "chat.completion.chunk") || strings.Count(body, `"object":"text_completion"`) < 2 {
		t.Errorf("completions stream:\n%s", body)
	}
	resp, err := http.Get(url + "/v1/models/" + e.Name)
	if err != nil {
		t.Fatal(err)
	}
	var m struct{ ID, Object string }
	json.NewDecoder(resp.Body).Decode(&m)
	resp.Body.Close()
	if resp.StatusCode != 200 || m.ID != e.Name || m.Object != "model" {
		t.Errorf("GET /v1/models/%s: %d %+v", e.Name, resp.StatusCode, m)
	}
	if resp, err := http.Get(url + "/v1/models/gpt-9"); err != nil || resp.StatusCode != 404 {
		t.Errorf("GET /v1/models/gpt-9: %v %v", resp, err)
	}
	for _, prompt := range []string{`[1, 5, 9]`, `[[1, 5, 9]]`} {
		resp, body := post(t, url+"/v1/completions", `{"prompt":`+prompt+`,"max_tokens":2}`)
		var out struct {
			Usage struct {
				Prompt int `json:"prompt_tokens"`
			} `json:"usage"`
		}
		if resp.StatusCode != 200 || json.Unmarshal([]byte(body), &out) != nil || out.Usage.Prompt != 3 {
			t.Errorf("prompt %s: %d %s", prompt, resp.StatusCode, body)
		}
	}
}

// TestReasoningOption: with Reasoning set, a chat answer's first tokens
// come as reasoning_content, in the stream and in a whole response, and
// usage counts them; the text generated is the same, only labelled.
func TestReasoningOption(t *testing.T) {
	e, url := start(t)
	const body = `{"messages":[{"role":"user","content":"hi"}],"max_tokens":12,"ignore_eos":true,"temperature":0}`
	_, plain := post(t, url+"/v1/chat/completions", body)
	e.Handler.Reasoning = 5
	_, split := post(t, url+"/v1/chat/completions", body)
	var a, b struct {
		Choices []struct {
			Message struct {
				Content          string `json:"content"`
				ReasoningContent string `json:"reasoning_content"`
			} `json:"message"`
		} `json:"choices"`
		Usage struct {
			CompletionTokens int `json:"completion_tokens"`
			Details          *struct {
				ReasoningTokens int `json:"reasoning_tokens"`
			} `json:"completion_tokens_details"`
		} `json:"usage"`
	}
	if json.Unmarshal([]byte(plain), &a) != nil || json.Unmarshal([]byte(split), &b) != nil || len(a.Choices) != 1 || len(b.Choices) != 1 {
		t.Fatalf("bodies %s / %s", plain, split)
	}
	got := b.Choices[0].Message
	if got.ReasoningContent == "" || got.ReasoningContent+got.Content != a.Choices[0].Message.Content {
		t.Errorf("reasoning %q + content %q, want the plain answer %q split", got.ReasoningContent, got.Content, a.Choices[0].Message.Content)
	}
	if b.Usage.Details == nil || b.Usage.Details.ReasoningTokens != 5 || b.Usage.CompletionTokens != 12 || a.Usage.Details != nil {
		t.Errorf("usage %+v / %+v", a.Usage, b.Usage)
	}

	cl, err := client.NewHTTP(client.HTTPConfig{URL: url, Stream: true, IgnoreEOS: true, Concurrency: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	var rec record.Record
	cl.Do(context.Background(), &client.Request{Model: "tpsbench-tiny-q8_0", Prompt: "Explain AI", MaxTokens: 20}, &rec)
	if rec.Error != nil || rec.OutputTokens != 20 || rec.ReasoningTokens != 5 || rec.AnswerTokens() != 15 {
		t.Fatalf("record: %d tokens, %d reasoning, %d answer (%v)", rec.OutputTokens, rec.ReasoningTokens, rec.AnswerTokens(), rec.Error)
	}
	seenAnswer := false
	for i, c := range rec.Chunks {
		if c.Kind == record.ChunkReasoning && seenAnswer {
			t.Fatalf("chunk %d is reasoning after the answer began", i)
		}
		seenAnswer = seenAnswer || c.Kind != record.ChunkReasoning
	}
	if _, ok := rec.TTFA(); !ok || rec.Chunks[0].Kind != record.ChunkReasoning {
		t.Errorf("first chunk kind %d, answer found %v", rec.Chunks[0].Kind, ok)
	}
}
