package engine_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"testing"

	"github.com/tpsbench/tpsbench/engine"
)

// processEnv makes this test binary an engine process: it loads the model
// the variable names, serves it on a loopback port, Announces it, and
// serves until SIGTERM.
const processEnv = "TPSBENCH_TEST_ENGINE_PROCESS"

func TestMain(m *testing.M) {
	if model := os.Getenv(processEnv); model != "" {
		os.Exit(serveProcess(model))
	}
	os.Exit(m.Run())
}

func serveProcess(model string) int {
	e, err := engine.Load(engine.Options{Model: model, Threads: 1})
	if err != nil {
		fmt.Fprintln(os.Stderr, "tpsbench:", err)
		return 1
	}
	defer e.Close()
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	if err := e.Serve(ctx, "127.0.0.1:0", func(url string) { engine.Announce(os.Stderr, e, url) }); err != nil {
		fmt.Fprintln(os.Stderr, "tpsbench:", err)
		return 1
	}
	return 0
}

func processCmd(model string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), processEnv+"="+model)
	return cmd
}

// TestProcessLifecycle: an engine started in a process of its own serves
// at the URL it announced until stopped; one that cannot start says why.
func TestProcessLifecycle(t *testing.T) {
	p, err := engine.StartProcess(processCmd("tiny"))
	if err != nil {
		t.Fatal(err)
	}
	if p.Name != "tpsbench-tiny-f32" || !strings.Contains(p.Info, "parameters") || !strings.Contains(p.Info, "F32 KV cache") || !p.Synthetic {
		t.Errorf("announced %q %q", p.Name, p.Info)
	}
	resp, err := http.Get(p.URL + "/v1/models")
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("the engine at %s: %v %v", p.URL, resp, err)
	}
	resp.Body.Close()
	p.Stop()
	<-p.Exited()
	if resp, err := http.Get(p.URL + "/health"); err == nil {
		resp.Body.Close()
		t.Errorf("the engine at %s still answers after Stop", p.URL)
	}
	_, err = engine.StartProcess(processCmd("/no/such/model.gguf"))
	if err == nil || !strings.Contains(err.Error(), "starting the engine: model \"/no/such/model.gguf\" is neither a file") {
		t.Errorf("a model that cannot load: %v", err)
	}
}
