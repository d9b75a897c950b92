package workload

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestQuestionForms: MMLU's rows (the answer an index, or its letter),
// exact match (GSM8K's "#### 42" matched on what follows), in JSON lines
// and in CSV (choices a JSON array in a cell), and each asked as lm-eval
// asks it.
func TestQuestionForms(t *testing.T) {
	jsonl := `{"question": "2+2?", "choices": ["3", "4", "5"], "answer": 1, "subject": "math"}
{"question": "Capital of France?", "choices": ["Lyon", "Paris"], "answer": "B"}
{"question": "Name the colour of the sky.", "answer": "Blue"}
{"question": "Janet has 3 eggs...", "answer": "She has 3+39 = 42\n#### 42"}
{"question": "A count?", "answer": 7}
`
	qs, err := parseQuestions([]byte(jsonl), false)
	if err != nil {
		t.Fatal(err)
	}
	if len(qs) != 5 || qs[0].Answer != 1 || qs[1].Answer != 1 || qs[2].Target != "Blue" || strings.TrimSpace(qs[3].Target) != "42" || qs[4].Target != "7" {
		t.Fatalf("%+v", qs)
	}
	if got, want := qs[0].Prompt(), "2+2?\nA. 3\nB. 4\nC. 5\nAnswer:"; got != want {
		t.Errorf("prompt %q, want %q", got, want)
	}
	if got, want := qs[2].Prompt(), "Name the colour of the sky.\nAnswer:"; got != want {
		t.Errorf("prompt %q, want %q", got, want)
	}
	csv := "question,choices,answer\n\"Which?\",\"[\"\"x\"\", \"\"y\"\"]\",A\n"
	qs, err = parseQuestions([]byte(csv), true)
	if err != nil || len(qs) != 1 || len(qs[0].Choices) != 2 || qs[0].Answer != 0 {
		t.Errorf("CSV: %+v, %v", qs, err)
	}
}

// TestGrading: a multiple-choice answer is the first of the choices'
// letters standing alone; an exact match compares the first line, case,
// spaces and the punctuation around it set aside.
func TestGrading(t *testing.T) {
	mc := Question{Text: "q", Choices: []string{"a", "b", "c", "d"}, Answer: 1}
	for answer, right := range map[string]bool{
		"B": true, " B.": true, "(B) because": true, "I think B": true, "The answer is B": true, "B) no, C": true,
		"C": false, "A or B": false, "Bee": false, "": false, "E": false, "b": false, "Ébé B": true,
	} {
		if got := mc.Grade(answer); got != right {
			t.Errorf("multiple choice, answer %q: graded %v, want %v", answer, got, right)
		}
	}
	exact := Question{Text: "q", Target: " 42 "}
	for answer, right := range map[string]bool{"42": true, " 42.\nbecause": true, "The answer is 42": false, "421": false} {
		if got := exact.Grade(answer); got != right {
			t.Errorf("exact match, answer %q: graded %v, want %v", answer, got, right)
		}
	}
	paris := Question{Text: "q", Target: "Paris"}
	if !paris.Grade("  paris!") || paris.Grade("Lyon") {
		t.Error("exact match ignores case and the punctuation around it")
	}
}

// TestQuestionErrors: a bad row is named by its number and its fault; a
// file of none, or that is not there, says so.
func TestQuestionErrors(t *testing.T) {
	for in, want := range map[string]string{
		`{"question": "q", "choices": ["a", "b"], "answer": 2}`:                       `question 1: "answer" 2`,
		`{"question": "q", "choices": ["a", "b"], "answer": "Z"}`:                     `question 1: "answer" "Z"`,
		`{"question": "q", "choices": ["a", "b"], "answer": 0.5}`:                     `question 1: "answer" 0.5`,
		`{"question": "q", "choices": ["a"], "answer": 0}`:                            "1 choices: want 2 to 26",
		`{"question": "q", "choices": "ab", "answer": 0}`:                             `"choices": want an array of texts`,
		`{"choices": ["a", "b"], "answer": 0}`:                                        `want a "question" of text`,
		`{"question": "q"}`:                                                           `want an "answer"`,
		`{"question": "q", "answer": "  ..  "}`:                                       `"answer": empty`,
		`{"question": "q", "answer": [1]}`:                                            "want the text to match",
		`{"question": "ok", "answer": "a"}` + "\n" + `{"question": 5, "answer": "b"}`: "question 2",
		"":         "no questions",
		"not json": "line 1: not a JSON object",
	} {
		if _, err := parseQuestions([]byte(in), false); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want it to say %q", in, err, want)
		}
	}
	if _, err := LoadQuestions(filepath.Join(t.TempDir(), "none.jsonl")); err == nil || !strings.Contains(err.Error(), "opening the question set") {
		t.Errorf("a missing file: %v", err)
	}
	path := filepath.Join(t.TempDir(), "q.jsonl")
	os.WriteFile(path, []byte(`{"question": "q", "answer": 1, "choices": ["a"]}`), 0o644)
	if _, err := LoadQuestions(path); err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("an error names its file: %v", err)
	}
}

// TestQuestionsInTurn: the seq-th request asks the question seq modulo
// the set, with the budget given, and grades by that question.
func TestQuestionsInTurn(t *testing.T) {
	src := Questions{List: []Question{{Text: "one", Target: "1"}, {Text: "two", Target: "2"}}, MaxTokens: 5}
	it := src.Item(3, false)
	if it.Prompt != "two\nAnswer:" || it.MaxTokens != 5 || it.Grade == nil || !it.Grade("2") || it.Grade("1") {
		t.Errorf("%+v", it)
	}
}

// FuzzQuestions: whatever a question file holds, reading it never panics,
// and every question read can be asked and graded.
func FuzzQuestions(f *testing.F) {
	f.Add([]byte(`{"question": "2+2?", "choices": ["3", "4"], "answer": 1}`), false)
	f.Add([]byte(`{"question": "q", "answer": "#### 7"}`), false)
	f.Add([]byte("question,choices,answer\nq,\"[\"\"a\"\",\"\"b\"\"]\",B\n"), true)
	f.Fuzz(func(t *testing.T, data []byte, isCSV bool) {
		qs, err := parseQuestions(data, isCSV)
		if err != nil {
			return
		}
		for _, q := range qs {
			_ = q.Grade(q.Prompt())
			if len(q.Choices) > 0 && (q.Answer < 0 || q.Answer >= len(q.Choices)) {
				t.Fatalf("answer %d of %d choices", q.Answer, len(q.Choices))
			}
		}
	})
}
