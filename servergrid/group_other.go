//go:build !unix

package servergrid

import (
	"os"
	"os/exec"
	"strings"
)

// ownGroup: no process groups here; the shell alone is stopped.
func ownGroup(*exec.Cmd) {}

// terminate asks the server to end, as this system can.
func terminate(cmd *exec.Cmd) { _ = cmd.Process.Signal(os.Interrupt) }

// kill ends the server.
func kill(cmd *exec.Cmd) { _ = cmd.Process.Kill() }

// shell runs a command line through the system's shell.
func shell(command string) *exec.Cmd { return exec.Command("cmd", "/C", command) }

// quote is v as one word of cmd.exe: double-quoted, its own double
// quotes doubled and its % and ^ escaped, so it expands nothing.
func quote(v string) string {
	v = strings.NewReplacer(`"`, `""`, "%", "^%", "^", "^^").Replace(v)
	return `"` + v + `"`
}
