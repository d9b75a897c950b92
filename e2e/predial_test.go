package e2e_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/tpsbench/tpsbench"
	"github.com/tpsbench/tpsbench/client"
	"github.com/tpsbench/tpsbench/load"
	"github.com/tpsbench/tpsbench/workload"
)

// TestConnectionsOpenedBeforeTheFirstStep: a closed loop's first step
// opens a connection for each of its users before it begins, and its
// requests take no others (the server accepts no more during the step);
// a later step of the same client opens none, its pool already holding
// connections. Users running sessions start their first turns together
// too.
func TestConnectionsOpenedBeforeTheFirstStep(t *testing.T) {
	for _, c := range []struct {
		name  string
		turns int
	}{{"requests", 0}, {"sessions", 3}} {
		t.Run(c.name, func(t *testing.T) { testConnectionsOpened(t, c.turns) })
	}
}

func testConnectionsOpened(t *testing.T, turns int) {
	var accepted atomic.Int64
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\n\ndata: {\"choices\":[{\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			accepted.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()
	cl, err := client.NewHTTP(client.HTTPConfig{URL: srv.URL, Stream: true, Concurrency: 6})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	step := func(c int) tpsbench.Step {
		return tpsbench.Step{Label: fmt.Sprint(c), Model: "m", Client: cl, Profile: load.Profile{Shape: load.Users{Count: c}, Requests: 3 * c, Sessions: load.Sessions{Turns: turns}},
			Workload: workload.Fixed{Prompt: "p", MaxTokens: 4}}
	}
	var afterFirst int64
	plan := tpsbench.Plan{Steps: []tpsbench.Step{step(6), step(6)}, Observer: tpsbench.ObserverFuncs{
		OnStep: func(i int, _ *tpsbench.Step) {
			if i == 1 {
				afterFirst = accepted.Load()
			}
		}}}
	res, err := tpsbench.Run(context.Background(), plan)
	if err != nil {
		t.Fatal(err)
	}
	if o := res.Steps[0].Opened; o == nil || o.Count != 6 || afterFirst != 6 {
		t.Errorf("first step: opened %+v, the server accepted %d; want 6 and 6", o, afterFirst)
	}
	if o := res.Steps[1].Opened; o != nil {
		t.Errorf("second step opened %+v, its client's pool already open", o)
	}
	if res.Steps[0].Requests.Completed != 18 || res.Steps[1].Requests.Completed != 18 {
		t.Errorf("completed %d and %d, want 18 each", res.Steps[0].Requests.Completed, res.Steps[1].Requests.Completed)
	}
}
