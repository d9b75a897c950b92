package workload

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tpsbench/tpsbench/content"
	"github.com/tpsbench/tpsbench/engine/gguf"
	"github.com/tpsbench/tpsbench/engine/synth"
	"github.com/tpsbench/tpsbench/engine/tokenizer"
	"github.com/tpsbench/tpsbench/record"
)

func write(t *testing.T, name, content string) string {
	p := filepath.Join(t.TempDir(), name)
	os.WriteFile(p, []byte(content), 0o644)
	return p
}

func TestLoadFile(t *testing.T) {
	plain := write(t, "p.txt", "Explain AI\n\n  Write a poem  \n")
	items, err := LoadFile(plain, 50, false)
	if err != nil || len(items) != 2 || items[1].Prompt != "Write a poem" || items[0].MaxTokens != 50 {
		t.Fatalf("%+v %v", items, err)
	}
	jl := write(t, "p.jsonl", `{"prompt":"a","max_tokens":7}`+"\n"+`{"messages":[{"role":"user","content":"b"}]}`+"\n")
	items, err = LoadFile(jl, 50, false)
	if err != nil || len(items) != 2 || items[0].MaxTokens != 7 || items[1].Messages[0].Content != "b" || items[1].MaxTokens != 50 {
		t.Fatalf("%+v %v", items, err)
	}
	sg := write(t, "sg.json", `[{"conversations":[{"from":"human","value":"hi there"},{"from":"gpt","value":"`+strings.Repeat("x", 40)+`"}]},{"conversations":[{"from":"gpt","value":"no human"}]}]`)
	items, stats, err := LoadFileStats(sg, 50, true)
	if err != nil || len(items) != 1 || items[0].Prompt != "hi there" || items[0].MaxTokens != 10 {
		t.Fatalf("%+v %v", items, err)
	}
	// the conversation without a human turn is dropped, and said so
	if s := stats.String(); s != "1 of 2 rows kept; 1 without a human turn with text" {
		t.Errorf("stats %q", s)
	}
	for name, bad := range map[string]string{"broken.jsonl": "{\"prompt\":\n", "empty.txt": "\n\n", "nofield.jsonl": "{\"x\":1}\n", "bad.json": "[1,2",
		"budget.jsonl": "{\"prompt\":\"a\",\"max_tokens\":9000000000000}\n"} {
		if _, err := LoadFile(write(t, name, bad), 5, false); err == nil {
			t.Errorf("%s accepted", name)
		}
	}
	if _, err := LoadFile(filepath.Join(t.TempDir(), "missing"), 5, false); err == nil {
		t.Error("missing file accepted")
	}
}

func TestListShuffledBySeed(t *testing.T) {
	items := []Item{{Prompt: "a"}, {Prompt: "b"}, {Prompt: "c"}, {Prompt: "d"}}
	a, _ := NewList(items, 1)
	b, _ := NewList(items, 1)
	seen := map[string]bool{}
	for i := 0; i < 4; i++ {
		if a.Item(i, false).Prompt != b.Item(i, false).Prompt {
			t.Fatal("same seed, different order")
		}
		seen[a.Item(i, false).Prompt] = true
	}
	if len(seen) != 4 {
		t.Errorf("one pass does not visit every prompt: %v", seen)
	}
}

// TestSyntheticLengths: against the engine's tokenizer, a synthetic prompt
// of n words is exactly n tokens, and the draws follow the asked mean.
func TestSyntheticLengths(t *testing.T) {
	p, _ := synth.Lookup("15m")
	b, _ := synth.Bytes(p, gguf.Q4_0, 1)
	f, _ := gguf.Parse(b)
	tk, err := tokenizer.FromGGUF(f)
	if err != nil {
		t.Fatal(err)
	}
	s := Synthetic{InputTokens: 100, OutputTokens: 20, Seed: 3}
	for i := 0; i < 5; i++ {
		it := s.Item(i, false)
		if n := len(tk.Encode(it.Prompt, false)); n != 100 {
			t.Fatalf("prompt of 100 words is %d tokens", n)
		}
		if it.MaxTokens != 20 {
			t.Fatalf("max tokens %d", it.MaxTokens)
		}
		if s.Item(i, false).Prompt != it.Prompt {
			t.Fatal("not reproducible")
		}
	}
	d := Synthetic{InputTokens: 200, InputStddev: 20, OutputTokens: 50, OutputStddev: 5, Seed: 9}
	sum := 0
	for i := 0; i < 400; i++ {
		sum += len(strings.Fields(d.Item(i, false).Prompt))
	}
	if mean := float64(sum) / 400; mean < 195 || mean > 205 {
		t.Errorf("mean prompt length %.1f, want about 200", mean)
	}
	// lengths past the bounds are drawn at the bounds, not as prompts of
	// gigabytes or budgets that wrap
	huge := Synthetic{InputTokens: 1e12, OutputTokens: 1e30, OutputStddev: math.NaN(), Seed: 1}
	if it := huge.Item(0, false); len(strings.Fields(it.Prompt)) != MaxPromptTokens || it.MaxTokens != record.MaxTokens {
		t.Errorf("a prompt of %d words, a budget of %d", len(strings.Fields(it.Prompt)), it.MaxTokens)
	}
	if p := huge.PromptOf(1<<30, nil, 0, 1); len(strings.Fields(p)) != MaxPromptTokens {
		t.Errorf("PromptOf(2^30): %d words", len(strings.Fields(p)))
	}
	g := Synthetic{InputTokens: 5, PrefixTokens: 64, PrefixGroups: 2, Seed: 1}
	a0, a2, a1 := g.Item(0, false).Prompt, g.Item(2, false).Prompt, g.Item(1, false).Prompt
	if a0[:200] != a2[:200] || a0[:200] == a1[:200] {
		t.Error("requests 0 and 2 should share a prefix that request 1 does not")
	}
}

func TestCalibrate(t *testing.T) {
	// a server whose template adds 9 tokens and whose tokenizer splits
	// every word in two
	count := func(s string) (int, error) { return 9 + 2*len(strings.Fields(s)), nil }
	s := Synthetic{InputTokens: 209, OutputTokens: 5, Seed: 2}
	if err := s.Calibrate(count); err != nil {
		t.Fatal(err)
	}
	if s.TokensPerWord != 2 || s.Overhead != 9 {
		t.Fatalf("calibrated %+v", s)
	}
	if n, _ := count(s.Item(0, false).Prompt); n != 209 {
		t.Errorf("prompt counts %d tokens, want 209", n)
	}
	bad := Synthetic{InputTokens: 10}
	if bad.Calibrate(func(string) (int, error) { return 5, nil }) == nil {
		t.Error("a tokenizer that counts nothing accepted")
	}
}

func TestConversations(t *testing.T) {
	sg := write(t, "sg.json", `[{"conversations":[{"from":"human","value":"q1"},{"from":"gpt","value":"a1"},{"from":"human","value":"q2"},{"from":"gpt","value":"a2"}]}]`)
	items, err := Conversations(sg, 9, false, 1)
	if err != nil || len(items) != 2 {
		t.Fatalf("%+v %v", items, err)
	}
	if len(items[0].Messages) != 1 || len(items[1].Messages) != 3 || items[1].Messages[1].Role != "assistant" || items[1].Messages[2].Content != "q2" {
		t.Fatalf("turns %+v", items)
	}
	l, _ := NewListInOrder(items)
	if len(l.Item(1, false).Messages) != 3 {
		t.Error("turn order lost")
	}
}

// FuzzPrompts: any prompts file gives prompts a request can carry, each
// with a positive output budget, or an error; never a panic.
func FuzzPrompts(f *testing.F) {
	f.Add([]byte("hello\n\nworld\n"), true)
	f.Add([]byte(`{"prompt":"a","max_tokens":3}`+"\n"+`{"messages":[{"role":"user","content":"b"}]}`), false)
	f.Add([]byte(`[{"conversations":[{"from":"human","value":"q"},{"from":"gpt","value":"an answer"}]}]`), true)
	f.Fuzz(func(t *testing.T, data []byte, replyLength bool) {
		items, _, err := parsePrompts(data, 16, replyLength)
		if err != nil {
			return
		}
		if len(items) == 0 {
			t.Fatal("no prompts and no error")
		}
		for i, it := range items {
			if (it.Prompt == "" && len(it.Messages) == 0) || it.MaxTokens < 1 {
				t.Fatalf("item %d: %+v", i, it)
			}
		}
	})
}

func TestParsePrompt(t *testing.T) {
	cases := []struct {
		in       string
		prompt   string
		messages []content.Message
		err      string
	}{
		{`"hi there"`, "hi there", nil, ""},
		{`[{"role":"user","content":"a"},{"role":"assistant","content":null}]`, "", []content.Message{{Role: "user", Content: "a"}, {Role: "assistant", Content: ""}}, ""},
		{` [{"role":"user","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]}]`, "", []content.Message{{Role: "user", Content: "ab"}}, ""},
		{`[{"role":"user","content":7}]`, "", nil, "messages[0].content"},
		{`[1,2,3]`, "", nil, "messages"},
		{`{"a":1}`, "", nil, "want a string or a messages array"},
		{``, "", nil, "want a string"},
	}
	for _, c := range cases {
		it, err := ParsePrompt([]byte(c.in))
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: error %v, want %q", c.in, err, c.err)
			}
			continue
		}
		if err != nil || it.Prompt != c.prompt || !slices.Equal(it.Messages, c.messages) {
			t.Errorf("%s: %+v, %v", c.in, it, err)
		}
	}
}

// FuzzParsePrompt: any JSON gives a prompt or an error; never a panic.
func FuzzParsePrompt(f *testing.F) {
	f.Add([]byte(`[{"role":"user","content":[{"type":"text","text":"a"}]}]`))
	f.Add([]byte(`"x"`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		it, err := ParsePrompt(raw)
		if err == nil && it.Prompt != "" && it.Messages != nil {
			t.Fatalf("both a prompt and messages: %+v", it)
		}
	})
}

// TestSyntheticCheck: lengths out of range, and a shared prefix with no
// group to share it in (which once made no prefix at all), are refused.
func TestSyntheticCheck(t *testing.T) {
	if err := (Synthetic{}).Check(); err != nil {
		t.Errorf("the zero lengths refused: %v", err)
	}
	for _, s := range []Synthetic{
		{InputTokens: -1}, {InputStddev: math.NaN()}, {OutputTokens: math.Inf(1)}, {PrefixTokens: -2},
		{InputTokens: MaxPromptTokens + 1}, {PrefixTokens: MaxPromptTokens + 1}, {OutputTokens: record.MaxTokens + 1},
		{InputTokens: 8, PrefixTokens: 4},
	} {
		if s.Check() == nil {
			t.Errorf("%+v accepted", s)
		}
	}
}
