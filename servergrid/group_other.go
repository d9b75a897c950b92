//go:build !unix

package servergrid

import (
	"os"
	"os/exec"
)

// ownGroup: no process groups here; the shell alone is stopped.
func ownGroup(*exec.Cmd) {}

// terminate asks the server to end, as this system can.
func terminate(cmd *exec.Cmd) { _ = cmd.Process.Signal(os.Interrupt) }

// kill ends the server.
func kill(cmd *exec.Cmd) { _ = cmd.Process.Kill() }

// shell runs a command line through the system's shell.
func shell(command string) *exec.Cmd { return exec.Command("cmd", "/C", command) }
