//go:build unix

package servergrid

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGridValuesAreOneArgument: a grid value substituted into the serve
// command is one argument to the shell whatever it holds: the command
// prints it back as given, and nothing it names runs.
func TestGridValuesAreOneArgument(t *testing.T) {
	dir := t.TempDir()
	pwned := filepath.Join(dir, "pwned")
	values := []string{"4; touch " + pwned, "$(touch " + pwned + ")", "`touch " + pwned + "`", "a'b", `"q"`, "x y", "plain-4.5", ""}
	for i, v := range values {
		p := Point{Keys: []string{"v"}, Values: []string{v}}
		out := filepath.Join(dir, "out")
		line, err := p.ExpandCommand("printf '%s|' {v} > "+out, 8000+i)
		if err != nil {
			t.Fatal(err)
		}
		if err := shell(line).Run(); err != nil {
			t.Errorf("%q: %v", v, err)
			continue
		}
		got, _ := os.ReadFile(out)
		want := v + "|"
		if v == "" {
			want = "|" // printf of one empty argument
		}
		if string(got) != want {
			t.Errorf("value %q ran as %q: printed %q", v, line, got)
		}
	}
	if _, err := os.Stat(pwned); err == nil {
		t.Error("a grid value ran a command of its own")
	}
	p := Point{Keys: []string{"v"}, Values: []string{"a;b"}}
	if s, _ := p.Expand("--x={v}", 1); s != "--x=a;b" || strings.Contains(s, "'") {
		t.Errorf("Expand of an argument list's value: %q, want it as given", s)
	}
}
