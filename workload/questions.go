package workload

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"unicode"

	"github.com/tpsbench/tpsbench/internal/fileread"
)

// Question is one item of an accuracy set, as lm-eval's two common forms
// have it: multiple choice (Choices, Answer the right one's index, as
// MMLU's rows), or exact match (no Choices, Target the answer's text).
type Question struct {
	Text    string
	Choices []string
	Answer  int
	Target  string
}

// maxChoices is how many choices a letter can name, A to Z.
const maxChoices = 26

// LoadQuestions reads a question set: JSON lines (or a JSON array, CSV or
// Parquet, as datasets are read) of rows with "question" and "answer",
// and for multiple choice "choices", MMLU's form: {"question": ...,
// "choices": ["..", ".."], "answer": 1} (the index, or its letter "B").
// Without choices the answer is the text to match; one that ends
// "#### 42" (GSM8K's) is matched on what follows the marks.
func LoadQuestions(path string) ([]Question, error) {
	data, err := fileread.AtMost(path, maxFile)
	if err != nil {
		return nil, fmt.Errorf("opening the question set: %w", err)
	}
	qs, err := parseQuestions(data, strings.EqualFold(filepath.Ext(path), ".csv"))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return qs, nil
}

func parseQuestions(data []byte, isCSV bool) ([]Question, error) {
	var qs []Question
	var bad error
	row := 0
	err := eachRow(data, isCSV, func(r map[string]json.RawMessage) {
		row++
		if bad != nil {
			return
		}
		q, err := questionOf(r)
		if err != nil {
			bad = fmt.Errorf("question %d: %w", row, err)
			return
		}
		qs = append(qs, q)
	})
	switch {
	case err != nil:
		return nil, err
	case bad != nil:
		return nil, bad
	case len(qs) == 0:
		return nil, fmt.Errorf("no questions: want rows with \"question\" and \"answer\"")
	}
	return qs, nil
}

// questionOf reads one row.
func questionOf(r map[string]json.RawMessage) (Question, error) {
	var q Question
	if err := json.Unmarshal(r["question"], &q.Text); err != nil || strings.TrimSpace(q.Text) == "" {
		return q, fmt.Errorf(`want a "question" of text`)
	}
	if raw, ok := r["choices"]; ok && !isNull(raw) {
		if err := json.Unmarshal(raw, &q.Choices); err != nil {
			var text string // a CSV's cell holds the array as text
			if json.Unmarshal(raw, &text) != nil || json.Unmarshal([]byte(text), &q.Choices) != nil {
				return q, fmt.Errorf(`"choices": want an array of texts`)
			}
		}
		if len(q.Choices) < 2 || len(q.Choices) > maxChoices {
			return q, fmt.Errorf("%d choices: want 2 to %d", len(q.Choices), maxChoices)
		}
	}
	raw, ok := r["answer"]
	if !ok || isNull(raw) {
		return q, fmt.Errorf(`want an "answer"`)
	}
	var answer any
	if err := json.Unmarshal(raw, &answer); err != nil {
		return q, fmt.Errorf(`"answer": %w`, err)
	}
	if len(q.Choices) == 0 {
		switch a := answer.(type) {
		case string:
			q.Target = a
			if _, after, ok := strings.Cut(a, "####"); ok {
				q.Target = after
			}
		case float64:
			q.Target = strconv.FormatFloat(a, 'f', -1, 64)
		default:
			return q, fmt.Errorf(`"answer": want the text to match`)
		}
		if normalize(q.Target) == "" {
			return q, fmt.Errorf(`"answer": empty`)
		}
		return q, nil
	}
	switch a := answer.(type) {
	case float64:
		q.Answer = int(a)
		if float64(q.Answer) != a {
			q.Answer = -1
		}
	case string:
		a = strings.TrimSpace(a)
		if n, err := strconv.Atoi(a); err == nil {
			q.Answer = n
		} else if len(a) == 1 && a[0] >= 'A' && a[0] <= 'Z' {
			q.Answer = int(a[0] - 'A')
		} else {
			q.Answer = -1
		}
	default:
		q.Answer = -1
	}
	if q.Answer < 0 || q.Answer >= len(q.Choices) {
		return q, fmt.Errorf(`"answer" %s: want a choice's index from 0 or its letter, of %d choices`, raw, len(q.Choices))
	}
	return q, nil
}

// Prompt is the question as asked: lm-eval's MMLU form for multiple
// choice (the question, each choice after its letter, "Answer:"), else
// the question and "Answer:".
func (q Question) Prompt() string {
	var b strings.Builder
	b.WriteString(strings.TrimSpace(q.Text))
	for i, c := range q.Choices {
		fmt.Fprintf(&b, "\n%c. %s", 'A'+i, strings.TrimSpace(c))
	}
	b.WriteString("\nAnswer:")
	return b.String()
}

// Grade says whether answer is right: for multiple choice, the first of
// the choices' letters standing alone in it ("B", " B.", "(B)", "The
// answer is B": not the I of "I think") is the right choice's; for exact
// match, its first line is the target once both are normalized (case,
// spaces, and the punctuation around them, set aside).
func (q Question) Grade(answer string) bool {
	if len(q.Choices) > 0 {
		got, ok := chosen(answer, len(q.Choices))
		return ok && got == q.Answer
	}
	first, _, _ := strings.Cut(strings.TrimSpace(answer), "\n")
	return normalize(first) == normalize(q.Target)
}

// chosen is the index of the first of n choices' letters that stands
// alone in answer (no letter either side).
func chosen(answer string, n int) (int, bool) {
	isLetter := func(i int) bool {
		return i >= 0 && i < len(answer) && (unicode.IsLetter(rune(answer[i])) || answer[i] >= 0x80)
	}
	for i := 0; i < len(answer); i++ {
		c := answer[i]
		if c >= 'A' && int(c-'A') < n && !isLetter(i-1) && !isLetter(i+1) {
			return int(c - 'A'), true
		}
	}
	return 0, false
}

// normalize is s lowercased, its spaces folded, and the punctuation
// around it trimmed.
func normalize(s string) string {
	s = strings.Join(strings.Fields(strings.ToLower(s)), " ")
	return strings.TrimFunc(s, func(r rune) bool { return unicode.IsPunct(r) || unicode.IsSpace(r) })
}

// Questions asks a question set in turn (the seq-th request the question
// seq modulo the set's size) with a budget of MaxTokens, each graded on
// its answer (Item.Grade).
type Questions struct {
	List      []Question
	MaxTokens int
}

// Item implements Source.
func (q Questions) Item(seq int, _ bool) Item {
	it := q.List[seq%len(q.List)]
	return Item{Prompt: it.Prompt(), MaxTokens: q.MaxTokens, Grade: it.Grade}
}
