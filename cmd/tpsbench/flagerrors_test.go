package main

import (
	"os"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/tpsbench/tpsbench"
)

// TestMistypedFlags: a flag one or two letters off is named, another
// tool's flag gets tpsbench's name for it, and the hint names the help of
// the command that failed.
func TestMistypedFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		says []string
	}{
		{[]string{"run", "--concurency", "4"}, []string{"did you mean --concurrency?", "Run 'tpsbench run --help'"}},
		{[]string{"run", "--max-token", "4"}, []string{"did you mean --max-tokens?"}},
		{[]string{"run", "--num-prompts", "4"}, []string{"tpsbench's is --requests"}},
		{[]string{"run", "--request-rate=4"}, []string{"tpsbench's is --rate"}},
		{[]string{"report", "--formatt", "x"}, []string{"did you mean --format?", "Run 'tpsbench report --help'"}},
		{[]string{"run", "--zzzzzzzz"}, []string{"unknown flag: --zzzzzzzz\n"}},
	} {
		code, _, errs := cli(t, c.args...)
		for _, want := range c.says {
			if code != exitUsage || !strings.Contains(errs, want) {
				t.Errorf("%v: exit %d, %q; want %d saying %q", c.args, code, errs, exitUsage, want)
			}
		}
	}
}

// TestPeerFlagsDocumented: every other tool's flag the command names in
// an error is in docs/flags.md, on a line with the tpsbench flag it gives.
func TestPeerFlagsDocumented(t *testing.T) {
	doc, err := os.ReadFile("../../docs/flags.md")
	if err != nil {
		t.Fatal(err)
	}
	first := regexp.MustCompile(`--[a-z-]+`)
	for peer, ours := range peerFlags {
		want := first.FindString(ours)
		named := regexp.MustCompile(regexp.QuoteMeta(peer) + `[^a-z-]`) // the whole flag, not a longer one
		found := false
		for _, line := range strings.Split(string(doc), "\n") {
			if named.MatchString(line) && (want == "" || strings.Contains(line, want)) {
				found = true
			}
		}
		if !found {
			t.Errorf("%s -> %s: no line of docs/flags.md has both", peer, ours)
		}
	}
}

func TestEditDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		d    int
	}{{"", "", 0}, {"concurency", "concurrency", 1}, {"max-token", "max-tokens", 1}, {"rate", "arte", 2}, {"abc", "", 3}} {
		if got := editDistance(c.a, c.b); got != c.d {
			t.Errorf("editDistance(%q, %q) = %d, want %d", c.a, c.b, got, c.d)
		}
	}
}

// TestVersion: the version command and --version say the version, the
// commit and the Go that built it.
func TestVersion(t *testing.T) {
	for _, args := range [][]string{{"version"}, {"--version"}} {
		code, out, _ := cli(t, args...)
		if code != 0 || !strings.Contains(out, tpsbench.Version) || !strings.Contains(out, "commit ") || !strings.Contains(out, runtime.Version()) {
			t.Errorf("%v: exit %d, %q", args, code, out)
		}
	}
}

// TestDocumentedDefaults: where docs/flags.md says a flag's value is the
// default ("`--api chat` (the default)"), it is run's default.
func TestDocumentedDefaults(t *testing.T) {
	doc, err := os.ReadFile("../../docs/flags.md")
	if err != nil {
		t.Fatal(err)
	}
	fs := newRunCmd().Flags()
	said := regexp.MustCompile("`--([a-z-]+) ([^`]+)` \\(the default\\)").FindAllStringSubmatch(string(doc), -1)
	if len(said) == 0 {
		t.Fatal("docs/flags.md names no default")
	}
	for _, m := range said {
		f := fs.Lookup(m[1])
		if f == nil || f.DefValue != m[2] {
			t.Errorf("docs/flags.md says --%s defaults to %q; run's is %v", m[1], m[2], f)
		}
	}
}

// TestDurationWithoutUnit: a duration given without a unit is told how
// one is written.
func TestDurationWithoutUnit(t *testing.T) {
	if code, _, errs := cli(t, "run", "--duration", "2"); code != exitUsage || !strings.Contains(errs, "a duration has a unit: 2s, 500ms, 1m") {
		t.Errorf("exit %d, %q", code, errs)
	}
}
