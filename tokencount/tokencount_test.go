package tokencount

import "testing"

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
