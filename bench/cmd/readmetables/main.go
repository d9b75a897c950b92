// Command readmetables keeps the README's tables of measured figures, and
// those of docs/*.md, equal to what the bench scripts last printed. A
// script writes its Markdown to bench/results/NAME.md; the README (or a
// page of docs/) holds it between
//
//	<!-- bench/results/NAME.md: written by bench/SCRIPT.sh; ... -->
//	<!-- end bench/results/NAME.md -->
//
// With -write it copies each file into its block. Without, it checks (as
// CI does) that every block equals its file and that every heading and
// table header of the file is still printed by its script, so a script
// whose output changed shape fails until it is run again; figures are
// never compared with a fresh run, as they move from run to run.
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

func main() {
	write := flag.Bool("write", false, "copy each results file into its README block")
	readme := flag.String("readme", "README.md", "the README, relative to the repository root")
	flag.Parse()
	if err := run(*readme, *write); err != nil {
		fmt.Fprintln(os.Stderr, "readme-tables:", err)
		os.Exit(1)
	}
}

// run checks (or, with write, fills) the blocks of readme and of every
// docs/*.md beside it; together they must have some.
func run(readme string, write bool) error {
	root := filepath.Dir(readme)
	pages, _ := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	total := 0
	for _, page := range append([]string{readme}, pages...) {
		n, err := checkDoc(page, root, write)
		if err != nil {
			return err
		}
		total += n
	}
	if total == 0 {
		return fmt.Errorf("%s and docs/*.md: %w", readme, errNoBlocks)
	}
	return nil
}

// checkDoc checks or fills the blocks of doc, whose paths are relative to
// the repository root, and says how many it has.
func checkDoc(doc, root string, write bool) (int, error) {
	data, err := os.ReadFile(doc)
	if err != nil {
		return 0, err
	}
	text := string(data)
	blocks, err := findBlocks(text)
	if errors.Is(err, errNoBlocks) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("%s: %w", doc, err)
	}
	var problems []string
	for i := len(blocks) - 1; i >= 0; i-- { // from the end, so earlier offsets hold
		b := blocks[i]
		results, err := os.ReadFile(filepath.Join(root, b.results))
		if err != nil {
			return 0, err
		}
		script, err := os.ReadFile(filepath.Join(root, b.script))
		if err != nil {
			return 0, fmt.Errorf("%s names its script: %w", b.results, err)
		}
		problems = append(problems, checkShape(b, string(results), string(script))...)
		if write {
			text = text[:b.start] + string(results) + text[b.end:]
		} else if text[b.start:b.end] != string(results) {
			problems = append(problems, fmt.Sprintf("%s: the block in %s differs from the file (run scripts/readme-tables -write)", b.results, doc))
		}
	}
	if write {
		if err := os.WriteFile(doc, []byte(text), 0o644); err != nil {
			return 0, err
		}
	}
	if len(problems) > 0 {
		return 0, fmt.Errorf("%d problem(s):\n  %s", len(problems), strings.Join(problems, "\n  "))
	}
	return len(blocks), nil
}

// block is one results file's place in the README: text[start:end] is
// its copy.
type block struct {
	results, script string
	start, end      int
}

var errNoBlocks = errors.New("no blocks of bench results")

var beginRE = regexp.MustCompile(`<!-- (bench/results/[\w.-]+\.md): written by (bench/[\w.-]+\.sh)[^>]*-->\n`)

func findBlocks(text string) ([]block, error) {
	var blocks []block
	for _, m := range beginRE.FindAllStringSubmatchIndex(text, -1) {
		b := block{results: text[m[2]:m[3]], script: text[m[4]:m[5]], start: m[1]}
		endMark := "<!-- end " + b.results + " -->"
		n := strings.Index(text[b.start:], endMark)
		if n < 0 {
			return nil, fmt.Errorf("%s: no %q after its block", b.results, endMark)
		}
		b.end = b.start + n
		if len(blocks) > 0 && blocks[len(blocks)-1].end > m[0] {
			return nil, fmt.Errorf("%s: begins inside the block of %s", b.results, blocks[len(blocks)-1].results)
		}
		blocks = append(blocks, b)
	}
	if len(blocks) == 0 {
		return nil, errNoBlocks
	}
	return blocks, nil
}

// checkShape says which headings and table headers of results the script
// no longer prints literally.
func checkShape(b block, results, script string) []string {
	var problems []string
	lines := strings.Split(results, "\n")
	for i, line := range lines {
		heading := strings.HasPrefix(line, "#")
		tableHeader := strings.HasPrefix(line, "|") && i+1 < len(lines) && strings.HasPrefix(lines[i+1], "|---")
		if (heading || tableHeader) && !strings.Contains(script, line) {
			problems = append(problems, fmt.Sprintf("%s: %s no longer prints %q (run it again)", b.results, b.script, line))
		}
	}
	return problems
}
