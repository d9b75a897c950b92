package workload

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/tpsbench/tpsbench/content"
	"github.com/tpsbench/tpsbench/internal/fileread"
	"github.com/tpsbench/tpsbench/record"
)

// Columns maps a dataset's fields onto requests, as GuideLLM's
// --data-column-mapper does: the prompt (text, a messages array, or an
// array of turns of which the first is sent, as vLLM reads Spec-Bench's
// "turns"), an optional system message, and an optional expected output
// length (a count of tokens, or the reference answer, whose length at 4
// characters a token sets the budget). Category, when set with
// Categories, keeps only the rows whose value in that column is one of
// them (Spec-Bench's "category").
type Columns struct {
	Prompt, System, Output string
	// Image, Audio and Video name columns of media sent with the prompt
	// (mediaReader.media reads their values).
	Image, Audio, Video string
	Category            string
	Categories          []string
}

// SpecBench is how Spec-Bench's question.jsonl (and MT-Bench's) maps:
// the first of a row's turns is the prompt, kept when its category is one
// of categories (all when none), as vLLM's spec_bench dataset reads it.
func SpecBench(categories ...string) Columns {
	return Columns{Prompt: "turns", Category: "category", Categories: categories}
}

// DatasetStats says what a dataset gave: its rows, the prompts kept, and
// the rows dropped by reason.
type DatasetStats struct {
	Rows, Kept int
	Dropped    map[string]int
	// Categories counts the rows of each value of the category column,
	// kept or not, when Columns.Category is set.
	Categories map[string]int
}

// String tells the stats as a sentence.
func (s DatasetStats) String() string {
	out := fmt.Sprintf("%d of %d rows kept", s.Kept, s.Rows)
	reasons := make([]string, 0, len(s.Dropped))
	for r := range s.Dropped {
		reasons = append(reasons, r)
	}
	sort.Strings(reasons)
	for _, r := range reasons {
		out += fmt.Sprintf("; %d %s", s.Dropped[r], r)
	}
	return out
}

// Reasons a dataset row is dropped.
const (
	dropNoPrompt = "without a prompt"
	dropBadText  = "whose prompt or system is not text (or messages)"
	dropBadCount = "whose output length is not a count from 1 to 2^30 or a text"
	dropCategory = "in another category"
)

// LoadDataset reads a dataset's rows, mapped by cols: JSON lines of
// objects, a JSON array of objects, Parquet (as Hugging Face stores
// datasets), or (a .csv file) CSV with a header.
// Rows that cannot make a request are dropped and counted by reason;
// items without an output length get maxTokens.
func LoadDataset(path string, cols Columns, maxTokens int) ([]Item, DatasetStats, error) {
	if cols.Prompt == "" {
		return nil, DatasetStats{}, errors.New("a dataset needs the column of its prompts")
	}
	data, err := fileread.AtMost(path, maxFile)
	if err != nil {
		return nil, DatasetStats{}, fmt.Errorf("opening the dataset: %w", err)
	}
	if strings.EqualFold(filepath.Ext(path), ".parquet") && !isParquet(data) {
		// read as JSON lines it said "line 1: not a JSON object"
		return nil, DatasetStats{}, fmt.Errorf("%s: not a Parquet file (no PAR1 at its start and end): a file cut short, or another format named .parquet", path)
	}
	items, stats, err := parseDataset(data, strings.EqualFold(filepath.Ext(path), ".csv"), cols, maxTokens, newMediaReader(filepath.Dir(path)))
	if err != nil {
		return nil, stats, fmt.Errorf("%s: %w", path, err)
	}
	return items, stats, nil
}

// parseDataset reads a dataset's contents (see LoadDataset).
func parseDataset(data []byte, isCSV bool, cols Columns, maxTokens int, media *mediaReader) ([]Item, DatasetStats, error) {
	stats := DatasetStats{Dropped: map[string]int{}}
	if cols.Category != "" {
		stats.Categories = map[string]int{}
	}
	var items []Item
	add := func(row map[string]json.RawMessage) {
		stats.Rows++
		it, reason := cols.item(row, maxTokens, stats.Categories, media)
		if reason != "" {
			stats.Dropped[reason]++
			return
		}
		stats.Kept++
		items = append(items, it)
	}
	if err := eachRow(data, isCSV, add); err != nil {
		return nil, stats, err
	}
	if len(items) == 0 {
		if stats.Dropped[dropCategory] > 0 {
			return nil, stats, fmt.Errorf("no prompts in %s (%s; its categories: %s)", strings.Join(cols.Categories, ", "), stats, countsOf(stats.Categories))
		}
		return nil, stats, fmt.Errorf("no prompts (%s; the prompt column is %q)", stats, cols.Prompt)
	}
	return items, stats, nil
}

// eachRow gives each row of a dataset file: CSV (with a header) when
// isCSV, Parquet when it is one, else a JSON array or JSON lines.
func eachRow(data []byte, isCSV bool, add func(map[string]json.RawMessage)) error {
	switch {
	case isCSV:
		return csvRows(data, add)
	case isParquet(data):
		return parquetRows(data, add)
	}
	return jsonRows(data, add)
}

// jsonRows gives each object of a JSON array or of JSON lines.
func jsonRows(data []byte, add func(map[string]json.RawMessage)) error {
	trimmed := bytes.TrimSpace(bytes.TrimPrefix(data, []byte("\uFEFF")))
	if len(trimmed) > 0 && trimmed[0] == '[' {
		var rows []map[string]json.RawMessage
		if err := json.Unmarshal(trimmed, &rows); err != nil {
			return fmt.Errorf("not a JSON array of objects: %w", err)
		}
		for _, r := range rows {
			add(r)
		}
		return nil
	}
	return eachLine(trimmed, func(n int, line []byte) error {
		var row map[string]json.RawMessage
		if err := json.Unmarshal(line, &row); err != nil {
			return fmt.Errorf("line %d: not a JSON object: %w", n, err)
		}
		add(row)
		return nil
	})
}

// eachLine calls fn with each line of data that is not blank, trimmed,
// and its number from 1, until fn fails. A file is read whole (bounded by
// its size), so a line is as long as a long-context prompt needs: a line
// scanner's bound refused those past it with a bare "token too long".
func eachLine(data []byte, fn func(n int, line []byte) error) error {
	n := 0
	for line := range bytes.Lines(data) {
		n++
		if line = bytes.TrimSpace(line); len(line) == 0 {
			continue
		}
		if err := fn(n, line); err != nil {
			return err
		}
	}
	return nil
}

// csvRows gives each row of a CSV file with a header, its fields as JSON
// strings.
func csvRows(data []byte, add func(map[string]json.RawMessage)) error {
	r := csv.NewReader(bytes.NewReader(bytes.TrimPrefix(data, []byte("\uFEFF"))))
	r.FieldsPerRecord = -1
	head, err := r.Read()
	if err != nil {
		return fmt.Errorf("reading the CSV header: %w", err)
	}
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		row := make(map[string]json.RawMessage, len(head))
		for i, h := range head {
			if i < len(rec) {
				row[strings.TrimSpace(h)], _ = json.Marshal(rec[i])
			}
		}
		add(row)
	}
}

// item maps a row to a request, or says why it cannot; it counts the
// row's category in seen.
func (c Columns) item(row map[string]json.RawMessage, maxTokens int, seen map[string]int, media *mediaReader) (Item, string) {
	it := Item{MaxTokens: maxTokens}
	if c.Category != "" {
		var category string
		if raw, ok := row[c.Category]; ok && json.Unmarshal(raw, &category) == nil {
			seen[category]++
		}
		if len(c.Categories) > 0 && !slices.Contains(c.Categories, category) {
			return it, dropCategory
		}
	}
	raw, ok := row[c.Prompt]
	if !ok || isNull(raw) {
		return it, dropNoPrompt
	}
	var text string
	var turns []string
	switch {
	case json.Unmarshal(raw, &text) == nil:
	case json.Unmarshal(raw, &turns) == nil && len(turns) > 0:
		text = turns[0]
	case json.Unmarshal(raw, &it.Messages) == nil && len(it.Messages) > 0:
	default:
		return it, dropBadText
	}
	if it.Messages == nil {
		if strings.TrimSpace(text) == "" {
			return it, dropNoPrompt
		}
		it.Prompt = text
	}
	if c.System != "" {
		if raw, ok := row[c.System]; ok && !isNull(raw) {
			var system string
			if json.Unmarshal(raw, &system) != nil {
				return it, dropBadText
			}
			if system != "" {
				if it.Messages == nil {
					it.Messages = []content.Message{{Role: "user", Content: it.Prompt}}
					it.Prompt = ""
				}
				it.Messages = append([]content.Message{{Role: "system", Content: system}}, it.Messages...)
			}
		}
	}
	if c.Output != "" {
		if raw, ok := row[c.Output]; ok && !isNull(raw) {
			n, ok := outputLength(raw)
			if !ok {
				return it, dropBadCount
			}
			it.MaxTokens = n
		}
	}
	for _, col := range c.mediaColumns() {
		raw, ok := row[col[0]]
		if !ok || isNull(raw) {
			continue // a row without media is sent as text
		}
		got, ok := media.media(raw, col[1])
		if !ok {
			return it, dropBadMedia
		}
		it.Media = append(it.Media, got...)
	}
	return it, ""
}

// outputLength reads an expected output length: a count (a number, or a
// string of one), or a reference answer's text at 4 characters a token.
func outputLength(raw json.RawMessage) (int, bool) {
	var f float64
	if json.Unmarshal(raw, &f) == nil {
		return int(f), f == float64(int64(f)) && f >= 1 && f <= record.MaxTokens
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return 0, false
	}
	if n, err := strconv.Atoi(strings.TrimSpace(s)); err == nil {
		return n, n >= 1 && n <= record.MaxTokens
	}
	if strings.TrimSpace(s) == "" {
		return 0, false
	}
	return min(max(1, (len(s)+3)/4), record.MaxTokens), true
}

// countsOf lists counts by name, sorted: "coding 10, math 10".
func countsOf(counts map[string]int) string {
	names := make([]string, 0, len(counts))
	for n := range counts {
		names = append(names, n)
	}
	sort.Strings(names)
	for i, n := range names {
		names[i] = fmt.Sprintf("%s %d", n, counts[n])
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

func isNull(raw json.RawMessage) bool { return string(bytes.TrimSpace(raw)) == "null" }
