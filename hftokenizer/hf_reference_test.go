package hftokenizer

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// hfReference finds what scripts/hftokenizers installs: Hugging Face's
// tokenizers.js and three real tokenizer.json files. In CI its absence is
// a failure: this test must run.
func hfReference(t *testing.T) string {
	t.Helper()
	dir := filepath.Join("..", ".cache", "hftokenizers")
	if _, err := os.Stat(filepath.Join(dir, "encode.mjs")); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("tokenizers.js reference is missing (scripts/hftokenizers installs it): %v", err)
		}
		t.Skipf("tokenizers.js reference not installed (run scripts/hftokenizers): %v", err)
	}
	abs, _ := filepath.Abs(dir)
	return abs
}

// referenceTexts are hand-picked hard cases and seeded random strings over
// an alphabet of the characters pre-tokenizers treat differently.
func referenceTexts() []string {
	texts := []string{
		"", " ", "  ", "\n", "Hello world", " Hello world", "Hello  world ", "hello\n\nworld\n",
		"I'm sure they'll say it's what we'd've done. I'M SURE THEY'LL",
		"12345 678901 3.14159 1,000,000 2026-11-29",
		"tabs\tand\r\nwindows lines\u00a0nbsp\u2003em space",
		"éàüß ça déjà naïve Ångström",
		"日本語のテキストと中文文本 한국어",
		"emoji 🙂👍🏽 and flags 🇫🇷 zwj 👩‍💻",
		"func main() {\n\tfmt.Println(\"hi\") // comment\n\treturn x+=1;\n}",
		"<s> hi</s> <|begin_of_text|>text<|eot_id|> <|endoftext|>",
		"!!! ??? ... --- ___ *** ### $$$ %%% ^^^",
		"    indented\n        more\n",
		"a" + strings.Repeat(" the quick brown fox jumps over the lazy dog", 60),
		strings.Repeat("ab", 700),
		strings.Repeat("9", 200),
	}
	alphabet := []rune("aeiou bcdfg THE st'sllvdm 0123456789 \n\n\t.,;:!?-_()[]{}\"'/\\ éüñ日本中한🙂\u00a0\u2028")
	rng := rand.New(rand.NewPCG(1, 2))
	for range 300 {
		n := rng.IntN(60)
		r := make([]rune, n)
		for i := range r {
			r[i] = alphabet[rng.IntN(len(alphabet))]
		}
		texts = append(texts, string(r))
	}
	return texts
}

// TestHFMatchesTokenizersJS: every id of every text equals what Hugging
// Face's tokenizers.js gives for the same tokenizer.json.
func TestHFMatchesTokenizersJS(t *testing.T) {
	ref := hfReference(t)
	texts := referenceTexts()
	input, _ := json.Marshal(texts)
	for _, model := range []string{"gpt2", "llama2", "llama3"} {
		t.Run(model, func(t *testing.T) {
			dir := filepath.Join(ref, "node_modules", "@lenml", "tokenizer-"+model, "models")
			cmd := exec.Command("node", filepath.Join(ref, "encode.mjs"), dir)
			cmd.Stdin = bytes.NewReader(input)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("tokenizers.js: %v\n%s", err, stderr.String())
			}
			var want [][]int
			if err := json.Unmarshal(out, &want); err != nil || len(want) != len(texts) {
				t.Fatalf("tokenizers.js gave %d answers for %d texts: %v", len(want), len(texts), err)
			}
			tok, err := LoadHF(dir)
			if err != nil {
				t.Fatal(err)
			}
			bad := 0
			for i, text := range texts {
				got := tok.Encode(text)
				if !slices.Equal(got, want[i]) {
					if bad++; bad <= 5 {
						t.Errorf("%q:\n got %v\nwant %v", text, got, want[i])
					}
				}
			}
			if bad > 0 {
				t.Errorf("%d of %d texts differ", bad, len(texts))
			}
		})
	}
}

// BenchmarkHFEncode: a 2,000-word prompt, the size synthetic workloads
// calibrate with, under the real tokenizers (no word cache for llama2,
// whose whole text is one piece).
func BenchmarkHFEncode(b *testing.B) {
	dir := filepath.Join("..", ".cache", "hftokenizers", "node_modules", "@lenml")
	text := strings.Repeat("the quick brown fox jumps over the lazy dog, 1234 times. ", 200)
	for _, model := range []string{"gpt2", "llama2", "llama3"} {
		tok, err := LoadHF(filepath.Join(dir, "tokenizer-"+model, "models"))
		if err != nil {
			b.Skip(err)
		}
		b.Run(model, func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				tok.model.mu.Lock()
				clear(tok.model.cache)
				tok.model.mu.Unlock()
				tok.Encode(text)
			}
		})
	}
}
