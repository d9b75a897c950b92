package workload

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/tpsbench/tpsbench/content"
)

// TestDatasetColumns: rows of JSON lines, a JSON array or CSV become
// requests through the column mapping; the prompt may be a messages
// array; a system column leads the messages; an output column is a count
// (a number or a string of one) or a reference text at 4 characters a
// token; rows that cannot be a request are dropped and counted by reason.
func TestDatasetColumns(t *testing.T) {
	cols := Columns{Prompt: "question", System: "sys", Output: "answer"}
	jsonl := `{"question": "What is TPS?", "answer": 12}
{"question": "Why?", "sys": "Be brief.", "answer": "twelve chars"}
{"question": [{"role": "user", "content": "hi"}], "answer": "7"}
{"question": "", "answer": 3}
{"other": "no question"}
{"question": 5}
{"question": "x", "answer": 0}
{"question": "y", "answer": 2.5}
`
	items, stats, err := parseDataset([]byte(jsonl), false, cols, 64, newMediaReader("."))
	if err != nil {
		t.Fatal(err)
	}
	want := []Item{
		{Prompt: "What is TPS?", MaxTokens: 12},
		{Messages: []content.Message{{Role: "system", Content: "Be brief."}, {Role: "user", Content: "Why?"}}, MaxTokens: 3},
		{Messages: []content.Message{{Role: "user", Content: "hi"}}, MaxTokens: 7},
	}
	if !reflect.DeepEqual(items, want) {
		t.Errorf("items %+v\nwant %+v", items, want)
	}
	if stats.Rows != 8 || stats.Kept != 3 || stats.Dropped[dropNoPrompt] != 2 || stats.Dropped[dropBadText] != 1 || stats.Dropped[dropBadCount] != 2 {
		t.Errorf("stats %+v", stats)
	}
	if s := stats.String(); !strings.HasPrefix(s, "3 of 8 rows kept; 2 whose output length") {
		t.Errorf("stats read %q", s)
	}

	array := `[{"question": "a", "answer": 4}, {"question": "b"}]`
	if items, _, err := parseDataset([]byte(array), false, cols, 64, newMediaReader(".")); err != nil || len(items) != 2 || items[0].MaxTokens != 4 || items[1].MaxTokens != 64 {
		t.Errorf("JSON array: %+v %v", items, err)
	}
	csvData := "\uFEFFid,question,answer\n1,\"Hello, world\",5\n2,,3\n"
	items, stats, err = parseDataset([]byte(csvData), true, cols, 64, newMediaReader("."))
	if err != nil || len(items) != 1 || items[0].Prompt != "Hello, world" || items[0].MaxTokens != 5 || stats.Dropped[dropNoPrompt] != 1 {
		t.Errorf("CSV: %+v %+v %v", items, stats, err)
	}
	if _, _, err := parseDataset([]byte(`{"other": 1}`), false, cols, 64, newMediaReader(".")); err == nil || !strings.Contains(err.Error(), `the prompt column is "question"`) {
		t.Errorf("no prompts: %v", err)
	}
}

// TestSpecBench: Spec-Bench's question.jsonl rows (its own shape: an id,
// a category and a list of turns) give their first turn as the prompt,
// only from the categories asked; the others are counted as dropped, and
// asking for a category the file lacks names those it has.
func TestSpecBench(t *testing.T) {
	file := `{"question_id": 81, "category": "writing", "turns": ["Compose a travel blog post.", "Rewrite it with every sentence starting with A."]}
{"question_id": 121, "category": "coding", "turns": ["Write a function to find the median."]}
{"question_id": 122, "category": "coding", "turns": []}
{"question_id": 200, "category": "translation", "turns": ["Translate German to English: Guten Tag."]}
{"question_id": 201, "turns": ["no category"]}
`
	items, stats, err := parseDataset([]byte(file), false, SpecBench("coding", "writing"), 256, newMediaReader("."))
	if err != nil {
		t.Fatal(err)
	}
	want := []Item{{Prompt: "Compose a travel blog post.", MaxTokens: 256}, {Prompt: "Write a function to find the median.", MaxTokens: 256}}
	if !reflect.DeepEqual(items, want) {
		t.Errorf("items %+v\nwant %+v", items, want)
	}
	wantStats := DatasetStats{Rows: 5, Kept: 2, Dropped: map[string]int{dropCategory: 2, dropBadText: 1}, Categories: map[string]int{"writing": 1, "coding": 2, "translation": 1}}
	if !reflect.DeepEqual(stats, wantStats) {
		t.Errorf("stats %+v\nwant %+v", stats, wantStats)
	}
	if items, stats, err := parseDataset([]byte(file), false, SpecBench(), 256, newMediaReader(".")); err != nil || len(items) != 4 || stats.Kept != 4 {
		t.Errorf("every category: %d items, %+v, %v", len(items), stats, err)
	}
	_, _, err = parseDataset([]byte(file), false, SpecBench("rag"), 256, newMediaReader("."))
	if err == nil || !strings.Contains(err.Error(), "no prompts in rag") || !strings.Contains(err.Error(), "its categories: coding 2, translation 1, writing 1") {
		t.Errorf("a category the file lacks: %v", err)
	}
}

// TestParquetDataset: a Parquet file written by another implementation
// (testdata/spec-bench.parquet.mjs says what it holds) reads as its JSON
// lines would: a LIST of text is a row's turns, a LIST of role/content
// groups its messages, an INT64 its output length; nulls and empty lists
// drop the row for the reason a JSON row would.
func TestParquetDataset(t *testing.T) {
	items, stats, err := LoadDataset("testdata/spec-bench.parquet", SpecBench("coding", "writing"), 256)
	if err != nil {
		t.Fatal(err)
	}
	want := []Item{{Prompt: "Compose a travel blog post.", MaxTokens: 256}, {Prompt: "Write a median function.", MaxTokens: 256}}
	if !reflect.DeepEqual(items, want) || stats.Rows != 4 || stats.Dropped[dropBadText] != 1 || stats.Dropped[dropCategory] != 1 {
		t.Errorf("Spec-Bench mapping: %+v, %+v", items, stats)
	}
	items, stats, err = LoadDataset("testdata/spec-bench.parquet", Columns{Prompt: "messages", Output: "max_len"}, 64)
	if err != nil {
		t.Fatal(err)
	}
	want = []Item{
		{Messages: []content.Message{{Role: "system", Content: "Be brief."}, {Role: "user", Content: "hi"}}, MaxTokens: 12},
		{Messages: []content.Message{{Role: "user", Content: "x"}}, MaxTokens: 64},
	}
	if !reflect.DeepEqual(items, want) || stats.Rows != 4 || stats.Dropped[dropNoPrompt] != 1 || stats.Dropped[dropBadText] != 1 {
		t.Errorf("messages mapping: %+v, %+v", items, stats)
	}
	data, _ := os.ReadFile("testdata/spec-bench.parquet")
	for _, cut := range []int{8, len(data) / 2, len(data) - 9} {
		broken := append(append([]byte{}, data[:cut]...), parquetMagic...)
		if _, _, err := parseDataset(broken, false, SpecBench(), 16, newMediaReader(".")); err == nil {
			t.Errorf("a file cut at %d read", cut)
		}
	}
}

// FuzzDataset: any file and mapping give requests with a prompt and a
// budget in range, or an error; never a panic.
func FuzzDataset(f *testing.F) {
	f.Add([]byte(`{"q": "a", "n": 3}`+"\n"+`{"q": [{"role":"user","content":"x"}], "n": "12"}`), false)
	f.Add([]byte("q,n\n\"a\"\"b\",1e300\n"), true)
	f.Add([]byte(`[{"q": null, "n": -1}, {"q": "z", "s": "sys", "n": "long answer"}]`), false)
	f.Add([]byte(`{"q": ["first", "second"], "c": "a"}`+"\n"+`{"q": [""], "c": "b"}`), false)
	if pq, err := os.ReadFile("testdata/spec-bench.parquet"); err == nil {
		f.Add(pq, false)
	}
	f.Add([]byte(`{"q": "a", "i": ["data:image/png;base64,iVBORw0KGgo=", "x.png"], "a": {"bytes": {"$base64": "UklGRg=="}, "path": "a.wav"}}`), false)
	dir := f.TempDir() // a dataset's relative paths resolve here, empty
	f.Fuzz(func(t *testing.T, data []byte, isCSV bool) {
		cols := Columns{Prompt: "q", System: "s", Output: "n", Image: "i", Audio: "a"}
		if len(data) > 0 && data[0] == '{' { // JSON lines also filter by category
			cols.Category, cols.Categories = "c", []string{"a"}
		}
		items, _, err := parseDataset(data, isCSV, cols, 16, newMediaReader(dir))
		if err != nil {
			return
		}
		for _, it := range items {
			if (it.Prompt == "" && len(it.Messages) == 0) || it.MaxTokens < 1 || it.MaxTokens > 1<<30 {
				t.Fatalf("item %+v", it)
			}
			for _, m := range it.Media {
				if k := m.Kind(); k != content.KindImage && k != content.KindAudio || len(m.Data) == 0 && m.URL == "" {
					t.Fatalf("a medium of kind %q, %d bytes, URL %q", k, len(m.Data), m.URL)
				}
			}
		}
	})
}

// TestDatasetLongLineAndFalseParquet: a line longer than any line
// scanner's bound (a long-context prompt of 65 MiB) is read, and a file
// named .parquet that is not Parquet is refused as such, not read as JSON
// lines.
func TestDatasetLongLineAndFalseParquet(t *testing.T) {
	dir := t.TempDir()
	long := filepath.Join(dir, "long.jsonl")
	prompt := strings.Repeat("a", 65<<20)
	if err := os.WriteFile(long, []byte(`{"q":"short"}`+"\n"+`{"q":"`+prompt+`"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	items, _, err := LoadDataset(long, Columns{Prompt: "q"}, 4)
	if err != nil || len(items) != 2 || len(items[1].Prompt) != len(prompt) {
		t.Fatalf("%d items, %v", len(items), err)
	}
	fake := filepath.Join(dir, "rows.parquet")
	if err := os.WriteFile(fake, []byte(`{"q":"a"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := LoadDataset(fake, Columns{Prompt: "q"}, 4); err == nil || !strings.Contains(err.Error(), "not a Parquet file") {
		t.Errorf("a .parquet of JSON lines: %v", err)
	}
}
