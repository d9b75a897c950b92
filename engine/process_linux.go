package engine

import (
	"os/exec"
	"syscall"
)

// setParentDeathSignal ends the engine with this process, even when this
// one is killed outright.
func setParentDeathSignal(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
