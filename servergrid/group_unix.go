//go:build unix

package servergrid

import (
	"os/exec"
	"strings"
	"syscall"
)

// ownGroup starts cmd in a process group of its own, so that a stop
// reaches what the shell started too.
func ownGroup(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} }

// terminate asks the server's process group to end (SIGTERM).
func terminate(cmd *exec.Cmd) { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM) }

// kill ends the server's process group (SIGKILL).
func kill(cmd *exec.Cmd) { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }

// shell runs a command line through /bin/sh.
func shell(command string) *exec.Cmd { return exec.Command("/bin/sh", "-c", command) }

// quote is v as one word of /bin/sh: single-quoted, its own single
// quotes closed, escaped and reopened.
func quote(v string) string { return "'" + strings.ReplaceAll(v, "'", `'\''`) + "'" }
