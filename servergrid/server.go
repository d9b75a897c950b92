package servergrid

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/tpsbench/tpsbench/client"
)

// Server is a server process the sweep started, in a process group of
// its own, its output kept in a log.
type Server struct {
	cmd    *exec.Cmd
	log    *os.File
	exited chan struct{}
	err    error // how it exited, once exited is closed
}

// FreePort is a loopback port free when asked.
func FreePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// Start runs command through the shell, its output appended to logPath.
func Start(command, logPath string) (*Server, error) {
	log, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, fmt.Errorf("the server's log: %w", err)
	}
	cmd := shell(command)
	cmd.Stdout, cmd.Stderr = log, log
	ownGroup(cmd) // stopped with all it starts
	if err := cmd.Start(); err != nil {
		log.Close()
		return nil, fmt.Errorf("starting %q: %w", command, err)
	}
	s := &Server{cmd: cmd, log: log, exited: make(chan struct{})}
	go func() {
		s.err = cmd.Wait()
		close(s.exited)
	}()
	return s, nil
}

// WaitReady waits until the server at url answers its model list (see
// client.WaitReady), up to timeout; it gives up at once when the process
// exits.
func (s *Server) WaitReady(ctx context.Context, url, api string, timeout time.Duration) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-s.exited:
			cancel()
		case <-ctx.Done():
		}
	}()
	err := client.WaitReady(ctx, url, api, "", nil, timeout)
	select {
	case <-s.exited:
		return fmt.Errorf("the server exited before it answered (%v)", s.err)
	default:
	}
	return err
}

// Stop ends the server's process group: SIGTERM, then SIGKILL after grace.
func (s *Server) Stop(grace time.Duration) error {
	defer s.log.Close()
	select {
	case <-s.exited:
		return nil
	default:
	}
	terminate(s.cmd)
	select {
	case <-s.exited:
		return nil
	case <-time.After(grace):
	}
	kill(s.cmd)
	<-s.exited
	return errors.New("the server did not stop within its grace after SIGTERM: killed")
}

// logTail is the last lines of a server's log, for a point that failed.
func logTail(path string, lines int) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	all := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(all) > lines {
		all = all[len(all)-lines:]
	}
	return strings.Join(all, "\n")
}
