package codeshape

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// binaryMagic are the first bytes of the executables Go builds for the
// systems the binary ships to (ELF, Mach-O in both byte orders and fat,
// PE), by the format's name.
var binaryMagic = []struct {
	format string
	magic  []byte
}{
	{"ELF", []byte("\x7fELF")},
	{"Mach-O", []byte{0xfe, 0xed, 0xfa, 0xce}},
	{"Mach-O", []byte{0xfe, 0xed, 0xfa, 0xcf}},
	{"Mach-O", []byte{0xce, 0xfa, 0xed, 0xfe}},
	{"Mach-O", []byte{0xcf, 0xfa, 0xed, 0xfe}},
	{"Mach-O", []byte{0xca, 0xfe, 0xba, 0xbe}},
	{"PE", []byte("MZ")},
}

// executableFormat names the executable format head starts with, or "".
func executableFormat(head []byte) string {
	for _, m := range binaryMagic {
		if bytes.HasPrefix(head, m.magic) {
			return m.format
		}
	}
	return ""
}

// TestNoBuildOutputsTracked: no file git tracks is a built program, and
// every file marked executable is a script. A 3.1 MB build of a helper
// once sat at the root, committed with a `git add -A` after a `go build`.
func TestNoBuildOutputsTracked(t *testing.T) {
	root := filepath.Join("..", "..")
	out, err := exec.Command("git", "-C", root, "ls-files", "--stage", "-z").Output()
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("listing the tracked files (git ls-files): %v", err)
		}
		t.Skipf("not a git checkout, or no git: %v", err)
	}
	for _, entry := range strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00") {
		// "MODE OBJECT STAGE\tPATH"
		meta, path, ok := strings.Cut(entry, "\t")
		if !ok {
			continue
		}
		head, err := fileHead(filepath.Join(root, path))
		if err != nil {
			continue // deleted in the work tree, not committed yet
		}
		if format := executableFormat(head); format != "" {
			t.Errorf("%s: a built program (%s) is tracked: git rm --cached it; .gitignore keeps build outputs out", path, format)
			continue
		}
		if strings.HasPrefix(meta, "100755 ") && !bytes.HasPrefix(head, []byte("#!")) {
			t.Errorf("%s: marked executable but not a script (no #! line)", path)
		}
	}
}

// fileHead is the first bytes of the file at path, as many as a magic
// number takes.
func fileHead(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	head := make([]byte, 4)
	n, err := io.ReadFull(f, head)
	if err == io.ErrUnexpectedEOF || err == io.EOF {
		err = nil
	}
	return head[:n], err
}

func TestExecutableFormat(t *testing.T) {
	for _, c := range []struct {
		head []byte
		want string
	}{
		{[]byte("\x7fELF"), "ELF"},
		{[]byte{0xcf, 0xfa, 0xed, 0xfe}, "Mach-O"},
		{[]byte("MZ\x90\x00"), "PE"},
		{[]byte("#!/u"), ""},
		{[]byte("pack"), ""},
		{nil, ""},
	} {
		if got := executableFormat(c.head); got != c.want {
			t.Errorf("executableFormat(%q) = %q, want %q", c.head, got, c.want)
		}
	}
}
