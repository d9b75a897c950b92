package chat

import (
	"strings"
	"testing"
)

// The formats themselves are held to llama.cpp's in
// engine/conformance_test.go; here, which family a source is.
func TestDetect(t *testing.T) {
	for _, c := range []struct{ source, want string }{
		{"", "plain"},
		{"{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}", "chatml"},
		{"{{ bos_token }}{% for m in messages %}<|start_header_id|>{{ m.role }}<|end_header_id|>\n\n{{ m.content | trim }}<|eot_id|>{% endfor %}", "llama3"},
		{"{% for m in messages %}<start_of_turn>{{ m.role }}\n{{ m.content }}<end_of_turn>\n{% endfor %}", "gemma"},
		{"{% for m in messages %}<|{{ m.role }}|>\n{{ m.content }}<|end|>\n{% endfor %}<|assistant|>\n", "phi3"},
		{"{%- if messages[0].role == 'system' %}[SYSTEM_PROMPT]{{ messages[0].content }}[/SYSTEM_PROMPT]{% endif %}[INST]", "mistral-v7"},
		{"{{ bos_token }}{% for m in messages %}[INST] <<SYS>>\n{{ m.content }}\n<</SYS>>{% endfor %}", "llama2-sys"},
		{"llama3", "llama3"},
		{"{% for m in messages %}<|im_start|>{{ m.role }}<|im_sep|>{{ m.content }}<|im_end|>{% endfor %}", "phi4"},
		{"{% for m in messages %}<|{{ m.role }}|>\n{{ m.content }}\n{% endfor %}<|user|><|assistant|></s>", "falcon3"},
		{"{{'<｜User｜>' + message['content']}}{{'<｜Assistant｜>' + content + '<｜end▁of▁sentence｜>'}}", "deepseek3"},
		{"{{ 'User: ' + message['content'] + '\n\n' }}{{ 'Assistant: ' + message['content'] + eos_token }}", "deepseek2"},
	} {
		got, err := Detect(c.source)
		if err != nil || got.Name != c.want {
			t.Errorf("%.40q: %s, %v; want %s", c.source, got.Name, err, c.want)
		}
	}
	if _, err := Detect("{% for m in messages %}### {{ m.role }}: {{ m.content }}{% endfor %}"); err == nil || !strings.Contains(err.Error(), "no known family") {
		t.Errorf("an unknown template: %v", err)
	}
	// a family llama.cpp tells apart before Llama 3's is named, not taken
	// for Llama 3
	if _, err := Detect("USER: {{ m }} ASSISTANT: <|start_header_id|><|end_header_id|>"); err == nil || !strings.Contains(err.Error(), "Vicuna") {
		t.Errorf("a Vicuna template: %v", err)
	}
}

func TestPlain(t *testing.T) {
	got := Plain.Apply([]Message{{"system", "Be brief."}, {"user", "Hi"}})
	if want := "system: Be brief.\nuser: Hi\nassistant:"; got != want {
		t.Errorf("%q, want %q", got, want)
	}
}
