// Package chat turns chat messages into a model's prompt, in the format
// its GGUF file's tokenizer.chat_template describes. Like llama.cpp's
// llama_chat_apply_template, it recognises the template families models
// ship (by the markers their Jinja source contains) rather than running
// Jinja, and builds each family's prompt as llama.cpp does.
package chat

import (
	"fmt"
	"strings"
)

// Message is one turn of a conversation.
type Message struct {
	Role, Content string
}

// Template is a recognised chat format.
type Template struct {
	Name   string
	format func(b *strings.Builder, msgs []Message)
}

// Apply builds the prompt of msgs, ending with the start of the
// assistant's turn.
func (t Template) Apply(msgs []Message) string {
	var b strings.Builder
	t.format(&b, msgs)
	return b.String()
}

// Plain is the format of a model without a template (the synthesized
// models): a "role: content" line each, then "assistant:".
var Plain = turns("plain", "%s: %s\n", "assistant:")

// turns is a family whose every message is turn filled with its role and
// content, and whose prompt for the answer is prompt.
func turns(name, turn, prompt string) Template {
	return Template{name, func(b *strings.Builder, msgs []Message) {
		for _, m := range msgs {
			fmt.Fprintf(b, turn, m.Role, m.Content)
		}
		b.WriteString(prompt)
	}}
}

// byName are the families, by llama.cpp's names for them.
var byName = map[string]Template{}

func init() {
	for _, t := range []Template{chatML, llama3, phi3, phi4, falcon3, gemma, zephyr, deepseek2, deepseek3, mistralV7, mistralV7Tekken,
		mistral("mistral-v1", " ", " ", false), mistral("mistral-v3", "", " ", true), mistral("mistral-v3-tekken", "", "", false),
		llama2("llama2", false, false, false), llama2("llama2-sys", true, false, false),
		llama2("llama2-sys-bos", true, true, false), llama2("llama2-sys-strip", true, false, true)} {
		byName[t.Name] = t
	}
}

// Detect recognises a template's family from its Jinja source (or its
// llama.cpp name), in llama.cpp's order of checks. An empty source is
// Plain; one of no known family is an error naming what was looked for.
func Detect(source string) (Template, error) {
	if source == "" {
		return Plain, nil
	}
	if t, ok := byName[source]; ok {
		return t, nil
	}
	has := func(s string) bool { return strings.Contains(source, s) }
	switch {
	case has("<|im_start|>") && has("<|im_sep|>"):
		return phi4, nil
	case has("<|im_start|>") && !has("<end_of_utterance>"):
		return chatML, nil
	case strings.HasPrefix(source, "mistral") || has("[INST]"):
		switch {
		case has("[SYSTEM_PROMPT]"):
			return byName["mistral-v7"], nil
		case has("' [INST] ' + system_message") || has("[AVAILABLE_TOOLS]"):
			switch {
			case has(" [INST]"):
				return byName["mistral-v1"], nil
			case has(`"[INST]"`):
				return byName["mistral-v3-tekken"], nil
			}
			return byName["mistral-v3"], nil
		case has("content.strip()"):
			return byName["llama2-sys-strip"], nil
		case has("bos_token + '[INST]"):
			return byName["llama2-sys-bos"], nil
		case has("<<SYS>>"):
			return byName["llama2-sys"], nil
		}
		return byName["llama2"], nil
	case has("<|assistant|>") && has("<|end|>"):
		return phi3, nil
	case has("<|assistant|>") && has("<|user|>") && has("</s>") && !has("[gMASK]<sop>"):
		return falcon3, nil
	case has("<|assistant|>") && has("<|user|>") && !has("[gMASK]<sop>"):
		return Template{}, fmt.Errorf("chat template of the GLM-Edge family, which is not built here (recognised: %s)", recognised)
	case has("<|user|>") && has("<|endoftext|>") && !has("<|assistant|>"):
		return zephyr, nil
	case has("<start_of_turn>") && !has("bos_token + message['role']"):
		return gemma, nil
	}
	// families llama.cpp tells apart before Llama 3 and DeepSeek's, which
	// are not built here: naming them is better than taking them for a
	// later one
	for _, u := range unsupported {
		if has(u.a) && (u.b == "" || has(u.b)) {
			return Template{}, fmt.Errorf("chat template of the %s family, which is not built here (recognised: %s)", u.name, recognised)
		}
	}
	switch {
	case has("<|start_header_id|>") && has("<|end_header_id|>"):
		return llama3, nil
	case has("'Assistant: ' + message['content'] + eos_token"):
		return deepseek2, nil
	case has("<｜Assistant｜>") && has("<｜User｜>") && has("<｜end▁of▁sentence｜>"):
		return deepseek3, nil
	}
	return Template{}, fmt.Errorf("chat template of no known family (recognised: %s)", recognised)
}

// recognised names the families built here.
const recognised = "ChatML, Llama 2 and 3, Mistral, Phi-3 and 4, Falcon 3, Gemma, Zephyr, DeepSeek V2 and V3/R1"

// unsupported are the families llama.cpp checks between Gemma and Llama 3,
// by its markers (a and, when set, b).
var unsupported = []struct{ name, a, b string }{
	{"Monarch", "bos_token + message['role']", ""},
	{"Orion", "'\\n\\nAssistant: ' + eos_token", ""},
	{"OpenChat", "GPT4 Correct ", ""},
	{"Vicuna", "USER: ", "ASSISTANT: "},
	{"DeepSeek Coder", "### Instruction:", "<|EOT|>"},
	{"Command R", "<|START_OF_TURN_TOKEN|>", "<|USER_TOKEN|>"},
}

func trim(s string) string { return strings.Trim(s, " \t\n\v\f\r") }

var chatML = turns("chatml", "<|im_start|>%s\n%s<|im_end|>\n", "<|im_start|>assistant\n")

var llama3 = Template{"llama3", func(b *strings.Builder, msgs []Message) {
	for _, m := range msgs {
		fmt.Fprintf(b, "<|start_header_id|>%s<|end_header_id|>\n\n%s<|eot_id|>", m.Role, trim(m.Content))
	}
	b.WriteString("<|start_header_id|>assistant<|end_header_id|>\n\n")
}}

var (
	phi4    = turns("phi4", "<|im_start|>%s<|im_sep|>%s<|im_end|>", "<|im_start|>assistant<|im_sep|>")
	falcon3 = turns("falcon3", "<|%s|>\n%s\n", "<|assistant|>\n")
)

// deepseek2 and deepseek3 (DeepSeek-V3 and R1, and R1's distilled Qwen and
// Llama models): system text alone, a user turn behind its marker, an
// assistant turn closed by the end of sentence.
var (
	deepseek2 = deepseek("deepseek2", "User: ", "\n\n", "Assistant: ", "Assistant:")
	deepseek3 = deepseek("deepseek3", "<｜User｜>", "", "<｜Assistant｜>", "<｜Assistant｜>")
)

func deepseek(name, user, afterUser, assistant, turn string) Template {
	return Template{name, func(b *strings.Builder, msgs []Message) {
		for _, m := range msgs {
			switch m.Role {
			case "system":
				b.WriteString(m.Content + "\n\n")
			case "user":
				b.WriteString(user + m.Content + afterUser)
			case "assistant":
				b.WriteString(assistant + m.Content + "<｜end▁of▁sentence｜>")
			}
		}
		b.WriteString(turn)
	}}
}

var (
	phi3   = turns("phi3", "<|%s|>\n%s<|end|>\n", "<|assistant|>\n")
	zephyr = turns("zephyr", "<|%s|>\n%s<|endoftext|>\n", "<|assistant|>\n")
)

// gemma has no system role: a system message joins the next user turn.
var gemma = Template{"gemma", func(b *strings.Builder, msgs []Message) {
	system := ""
	for _, m := range msgs {
		role := m.Role
		switch role {
		case "system":
			system += trim(m.Content)
			continue
		case "assistant":
			role = "model"
		}
		fmt.Fprintf(b, "<start_of_turn>%s\n", role)
		if system != "" && role != "model" {
			b.WriteString(system + "\n\n")
			system = ""
		}
		b.WriteString(trim(m.Content) + "<end_of_turn>\n")
	}
	b.WriteString("<start_of_turn>model\n")
}}

// mistralV7 and its Tekken variant (no spaces inside the markers). Neither
// adds anything for the assistant's turn.
var (
	mistralV7       = mistral7("mistral-v7", " ")
	mistralV7Tekken = mistral7("mistral-v7-tekken", "")
)

func mistral7(name, space string) Template {
	return Template{name, func(b *strings.Builder, msgs []Message) {
		for _, m := range msgs {
			switch m.Role {
			case "system":
				b.WriteString("[SYSTEM_PROMPT]" + space + m.Content + "[/SYSTEM_PROMPT]")
			case "user":
				b.WriteString("[INST]" + space + m.Content + "[/INST]")
			default:
				b.WriteString(space + m.Content + "</s>")
			}
		}
	}}
}

// mistral is the v1, v3 and v3-tekken formats: system text opens the
// instruction, an assistant reply closes the turn.
func mistral(name, lead, trail string, trimReply bool) Template {
	return Template{name, func(b *strings.Builder, msgs []Message) {
		inTurn := false
		for _, m := range msgs {
			if !inTurn {
				b.WriteString(lead + "[INST]" + trail)
				inTurn = true
			}
			switch m.Role {
			case "system":
				b.WriteString(m.Content + "\n\n")
			case "user":
				b.WriteString(m.Content + lead + "[/INST]")
			default:
				reply := m.Content
				if trimReply {
					reply = trim(reply)
				}
				b.WriteString(trail + reply + "</s>")
				inTurn = false
			}
		}
	}}
}

// llama2 and its variants: with a system block, with BOS inside the
// history, with messages trimmed.
func llama2(name string, system, bosInHistory, strip bool) Template {
	return Template{name, func(b *strings.Builder, msgs []Message) {
		b.WriteString("[INST] ")
		inTurn := true
		for _, m := range msgs {
			content := m.Content
			if strip {
				content = trim(content)
			}
			if !inTurn {
				inTurn = true
				if bosInHistory {
					b.WriteString("<s>")
				}
				b.WriteString("[INST] ")
			}
			switch m.Role {
			case "system":
				if system {
					b.WriteString("<<SYS>>\n" + content + "\n<</SYS>>\n\n")
				} else {
					b.WriteString(content + "\n")
				}
			case "user":
				b.WriteString(content + " [/INST]")
			default:
				b.WriteString(content + "</s>")
				inTurn = false
			}
		}
	}}
}
