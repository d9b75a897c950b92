package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/tpsbench/tpsbench/internal/scripted"
)

// TestLoRAModules: --lora-modules sends each request to one of the
// adapters (by weight at random, or in turn), and the report's figures
// of each model count what the scripted server received for it.
func TestLoRAModules(t *testing.T) {
	for _, tc := range []struct {
		assign string
		exact  map[string]int // counts known in advance (in turn)
	}{{"random", nil}, {"round-robin", map[string]int{"sql-lora": 20, "chat-lora": 20}}} {
		srv := scripted.New(scripted.Script{Usage: true})
		code, out, errs := cli(t, "run", "--url", srv.URL, "--model", "base", "--max-tokens", "3", "--requests", "40", "--concurrency", "4",
			"--lora-modules", "sql-lora:3,chat-lora", "--lora-assignment", tc.assign, "--format", "json")
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", tc.assign, code, errs)
		}
		received := map[string]int{}
		for _, s := range srv.All() {
			var body struct{ Model string }
			json.Unmarshal(s.Request, &body)
			received[body.Model]++
		}
		srv.Close()
		if len(received) != 2 || received["sql-lora"] == 0 || received["chat-lora"] == 0 {
			t.Errorf("%s: the server received %v", tc.assign, received)
		}
		if tc.exact != nil && (received["sql-lora"] != tc.exact["sql-lora"] || received["chat-lora"] != tc.exact["chat-lora"]) {
			t.Errorf("%s: the server received %v, want %v", tc.assign, received, tc.exact)
		}
		if tc.assign == "random" && received["sql-lora"] <= received["chat-lora"] {
			t.Errorf("random by weight 3:1 gave %v", received)
		}
		var rep struct {
			Steps []struct {
				Models []struct {
					Model     string `json:"name"`
					Completed int    `json:"completed"`
				} `json:"models"`
			} `json:"steps"`
		}
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatal(err)
		}
		for _, m := range rep.Steps[0].Models {
			if m.Completed != received[m.Model] {
				t.Errorf("%s: the report has %d completed for %s, the server received %d", tc.assign, m.Completed, m.Model, received[m.Model])
			}
		}
		if len(rep.Steps[0].Models) != 2 {
			t.Errorf("%s: report models %+v", tc.assign, rep.Steps[0].Models)
		}
	}
	srv := server(t)
	for _, bad := range [][]string{{"--lora-modules", "a:0"}, {"--lora-modules", "a,a"}, {"--lora-modules", "a", "--lora-assignment", "sometimes"}} {
		if code, _, errs := cli(t, append([]string{"run", "--url", srv.URL, "--model", "m"}, bad...)...); code != exitUsage || !strings.Contains(errs, "--lora") {
			t.Errorf("%v: exit %d %s", bad, code, errs)
		}
	}
}
