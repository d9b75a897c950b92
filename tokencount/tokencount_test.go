package tokencount

import (
	"strings"
	"testing"
)

func TestCounts(t *testing.T) {
	// Reference counts from OpenAI's tiktoken for these strings.
	cases := map[string]map[string]int{
		"cl100k": {"Hello, world!": 4, "the story of the little house": 6, "": 0},
		"o200k":  {"Hello, world!": 4, "the story of the little house": 6},
	}
	for name, texts := range cases {
		c, err := New(name)
		if err != nil {
			t.Fatal(err)
		}
		for text, want := range texts {
			if got := c(text); got != want {
				t.Errorf("%s(%q) = %d, want %d", name, text, got, want)
			}
		}
	}
	if _, err := New("gpt2"); err == nil {
		t.Error("unknown encoding accepted")
	}
}

func TestNewReadsTokenizerJSON(t *testing.T) {
	for _, path := range []string{"../hftokenizer/testdata/tiny-tokenizer.json"} {
		c, err := New(path)
		if err != nil {
			t.Fatal(err)
		}
		if got := c("ab ab"); got != 2 {
			t.Errorf("%s: %d tokens, want 2", path, got)
		}
	}
	if _, err := New("testdata/none.json"); err == nil || !strings.Contains(err.Error(), "tokenizer.json") {
		t.Errorf("missing file: %v", err)
	}
}
