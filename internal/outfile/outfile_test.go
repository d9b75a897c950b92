package outfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

func contents(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// onlyFiles fails unless dir holds exactly names (no temporary files
// left behind).
func onlyFiles(t *testing.T, dir string, names ...string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	if strings.Join(got, ",") != strings.Join(names, ",") {
		t.Errorf("folder holds %v, want %v", got, names)
	}
}

func TestCreateWritesWholeFileOnCommit(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "report.txt")
	f, err := Create(path, false)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("half")
	if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the file is in place before Commit: %v", err)
	}
	f.WriteString(" and whole")
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	f.Abort() // after Commit: nothing
	if got := contents(t, path); got != "half and whole" {
		t.Errorf("file holds %q", got)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, want 0644", st.Mode().Perm())
	}
	onlyFiles(t, dir, "report.txt")
}

func TestExistingFileKeptUnlessReplaced(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "model.gguf")
	write(t, path, "the user's")
	if _, err := Create(path, false); !errors.Is(err, ErrExists) || !strings.Contains(err.Error(), "--force") {
		t.Errorf("Create over an existing file: %v, want ErrExists naming --force", err)
	}
	if _, err := CreateStream(path, false); !errors.Is(err, ErrExists) {
		t.Errorf("CreateStream over an existing file: %v, want ErrExists", err)
	}
	if err := Check(path, false); !errors.Is(err, ErrExists) {
		t.Errorf("Check: %v", err)
	}
	if got := contents(t, path); got != "the user's" {
		t.Fatalf("refusing changed the file: %q", got)
	}
	// asked to replace, the new file takes its place, keeping its mode
	f, err := Create(path, true)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("new")
	if got := contents(t, path); got != "the user's" {
		t.Errorf("replaced before Commit: %q", got)
	}
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	if got := contents(t, path); got != "new" {
		t.Errorf("file holds %q", got)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want the replaced file's 0600", st.Mode().Perm())
	}
	onlyFiles(t, dir, "model.gguf")
}

func TestAbortLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	kept := filepath.Join(dir, "kept")
	write(t, kept, "before")
	for _, path := range []string{filepath.Join(dir, "new"), kept} {
		f, err := Create(path, true)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString("partial")
		f.Abort()
		if err := f.Commit(); err == nil {
			t.Error("Commit after Abort succeeded")
		}
	}
	if got := contents(t, kept); got != "before" {
		t.Errorf("aborting changed the existing file: %q", got)
	}
	onlyFiles(t, dir, "kept")
}

func TestFileThatAppearsWhileWritingIsKept(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out")
	f, err := Create(path, false)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("ours")
	write(t, path, "someone else's")
	if err := f.Commit(); !errors.Is(err, ErrExists) {
		t.Errorf("Commit over a file that appeared: %v, want ErrExists", err)
	}
	if got := contents(t, path); got != "someone else's" {
		t.Errorf("file holds %q", got)
	}
	onlyFiles(t, dir, "out")
}

// TestDevicesWrittenInPlace: /dev/null is written, never truncated,
// renamed over or removed (as root, a rename over it would replace the
// device with a file).
func TestDevicesWrittenInPlace(t *testing.T) {
	for _, replace := range []bool{false, true} {
		f, err := Create(os.DevNull, replace)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString("discarded")
		if err := f.Commit(); err != nil {
			t.Fatal(err)
		}
		g, err := Create(os.DevNull, replace)
		if err != nil {
			t.Fatal(err)
		}
		g.Abort()
		s, err := CreateStream(os.DevNull, replace)
		if err != nil {
			t.Fatal(err)
		}
		s.Close()
		st, err := os.Stat(os.DevNull)
		if err != nil || st.Mode()&fs.ModeCharDevice == 0 {
			t.Fatalf("%s is no longer a device: %v %v", os.DevNull, st.Mode(), err)
		}
	}
}

func TestRefusedPaths(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "file"), "x")
	for _, c := range []struct{ path, want string }{
		{"", "no file name"},
		{dir, "is a folder"},
		{filepath.Join(dir, "missing", "out"), "folder"},
		{filepath.Join(dir, "file", "out"), "not a folder"},
	} {
		if _, err := Create(c.path, true); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Create(%q): %v, want %q", c.path, err, c.want)
		}
		if _, err := CreateStream(c.path, true); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("CreateStream(%q): %v, want %q", c.path, err, c.want)
		}
	}
	onlyFiles(t, dir, "file")
}

// TestEmptyFileWritten: an empty file holds nothing to lose (watch
// follows one a run is about to write): written without --force, and in
// place by CreateStream, so a follower of the file sees the records.
func TestEmptyFileWritten(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "r.jsonl")
	write(t, path, "")
	before, _ := os.Stat(path)
	f, err := CreateStream(path, false)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("{}\n")
	f.Close()
	after, _ := os.Stat(path)
	if !os.SameFile(before, after) || contents(t, path) != "{}\n" {
		t.Errorf("the empty file was not written in place")
	}
	write(t, path, "")
	g, err := Create(path, false)
	if err != nil {
		t.Fatal(err)
	}
	g.WriteString("x")
	if err := g.Commit(); err != nil {
		t.Fatal(err)
	}
	if contents(t, path) != "x" {
		t.Errorf("file holds %q", contents(t, path))
	}
}

func TestCreateStream(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "run.jsonl")
	f, err := CreateStream(path, false)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("{}\n")
	// in place at once: a run killed now keeps its records
	if got := contents(t, path); got != "{}\n" {
		t.Errorf("file holds %q while written", got)
	}
	f.Close()
	g, err := CreateStream(path, true)
	if err != nil {
		t.Fatal(err)
	}
	g.Close()
	if got := contents(t, path); got != "" {
		t.Errorf("replacing left %q", got)
	}
}
