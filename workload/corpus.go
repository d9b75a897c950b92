package workload

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/tpsbench/tpsbench/internal/fileread"
)

// maxCorpus bounds a corpus read into memory.
const maxCorpus = 256 << 20

// LoadCorpus reads a text file as a corpus for synthetic prompts: its
// lines with words, each as its words (Synthetic.Corpus).
func LoadCorpus(path string) ([][]string, error) {
	data, err := fileread.AtMost(path, maxCorpus)
	if err != nil {
		return nil, fmt.Errorf("opening the corpus: %w", err)
	}
	lines, err := parseCorpus(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return lines, nil
}

// parseCorpus splits a corpus into lines of words, leaving out lines
// without one.
func parseCorpus(data []byte) ([][]string, error) {
	var lines [][]string
	_ = eachLine(data, func(_ int, line []byte) error {
		lines = append(lines, strings.Fields(string(line)))
		return nil
	})
	if len(lines) == 0 {
		return nil, fmt.Errorf("no words")
	}
	return lines, nil
}

// corpusText is n words of the corpus: whole lines drawn at random, one
// a line, the last cut to make n.
func corpusText(lines [][]string, r *rand.Rand, n int) string {
	var b strings.Builder
	for left := n; left > 0; {
		line := lines[r.IntN(len(lines))]
		line = line[:min(len(line), left)]
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(strings.Join(line, " "))
		left -= len(line)
	}
	return b.String()
}
