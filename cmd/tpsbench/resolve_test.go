package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/tpsbench/tpsbench/load"
)

// runFlagsFrom parses args as run's command line, without running it.
func runFlagsFrom(t *testing.T, args ...string) (*runFlags, func(string) bool) {
	t.Helper()
	f := &runFlags{}
	cmd := newRunCmdWith(f)
	if err := cmd.ParseFlags(args); err != nil {
		t.Fatalf("%v: %v", args, err)
	}
	return f, cmd.Flags().Changed
}

// resolveRule is one rule of resolve: flags, and what they resolve to
// (check), or the usage error they give (usage names what it says).
type resolveRule struct {
	name  string
	args  []string
	check func(*testing.T, *runConfig)
	usage string
}

var resolveRules = []resolveRule{
	{"burstiness alone means gamma arrivals", []string{"--rate", "2", "--burstiness", "0.5"}, func(t *testing.T, c *runConfig) {
		if c.arrivals != load.Gamma || c.burstiness != 0.5 {
			t.Errorf("arrivals %s burstiness %v", c.arrivals, c.burstiness)
		}
	}, ""},
	{"gamma without burstiness is Poisson's shape", []string{"--rate", "2", "--arrivals", "gamma"}, func(t *testing.T, c *runConfig) {
		if c.arrivals != load.Gamma || c.burstiness != 1 {
			t.Errorf("arrivals %s burstiness %v", c.arrivals, c.burstiness)
		}
	}, ""},
	{"burstiness with poisson is refused", []string{"--arrivals", "poisson", "--burstiness", "2"}, nil, "--burstiness"},
	{"unknown arrivals", []string{"--arrivals", "bursty"}, nil, "--arrivals"},
	{"sweep levels", []string{"--sweep", "1,8"}, func(t *testing.T, c *runConfig) {
		if !slices.Equal(c.levels, []int{1, 8}) || !c.levelSweep || !c.sweeping {
			t.Errorf("levels %v, sweep %v %v", c.levels, c.levelSweep, c.sweeping)
		}
	}, ""},
	{"sweep and concurrency", []string{"--sweep", "1,8", "--concurrency", "2"}, nil, "--sweep or --concurrency"},
	{"factor batch sweeps 1-32", []string{"--factor", "batch"}, func(t *testing.T, c *runConfig) {
		if !slices.Equal(c.levels, []int{1, 4, 8, 16, 32}) || !c.levelSweep {
			t.Errorf("levels %v", c.levels)
		}
	}, ""},
	{"factor batch keeps a given sweep", []string{"--factor", "batch", "--sweep", "2,4"}, func(t *testing.T, c *runConfig) {
		if !slices.Equal(c.levels, []int{2, 4}) {
			t.Errorf("levels %v", c.levels)
		}
	}, ""},
	{"rate sweeps are steps of one target", []string{"--sweep-rates", "1,2"}, func(t *testing.T, c *runConfig) {
		if c.levelSweep || !c.sweeping {
			t.Errorf("sweep %v %v", c.levelSweep, c.sweeping)
		}
	}, ""},
	{"show-tokens is one request", []string{"--show-tokens"}, func(t *testing.T, c *runConfig) {
		if c.requests != 1 {
			t.Errorf("requests %d", c.requests)
		}
	}, ""},
	{"show-tokens with a sweep", []string{"--show-tokens", "--sweep", "1,2"}, nil, "--show-tokens"},
	{"find-max needs targets", []string{"--find-max"}, nil, "--find-max needs targets"},
	{"find-max and a rate", []string{"--find-max", "--slo", "ttft=1s", "--rate", "3"}, nil, "--find-max searches"},
	{"no server: the embedded engine, ignore_eos sent", nil, func(t *testing.T, c *runConfig) {
		if !c.embedded || !c.ignoreEOS {
			t.Errorf("embedded %v ignore_eos %v", c.embedded, c.ignoreEOS)
		}
	}, ""},
	{"the embedded engine without ignore_eos when told", []string{"--ignore-eos=false"}, func(t *testing.T, c *runConfig) {
		if !c.embedded || c.ignoreEOS {
			t.Errorf("embedded %v ignore_eos %v", c.embedded, c.ignoreEOS)
		}
	}, ""},
	{"a URL: no engine, no ignore_eos", []string{"--url", "http://127.0.0.1:1"}, func(t *testing.T, c *runConfig) {
		if c.embedded || c.ignoreEOS {
			t.Errorf("embedded %v ignore_eos %v", c.embedded, c.ignoreEOS)
		}
	}, ""},
	{"engine factors run the engine", []string{"--factor", "quantization"}, func(t *testing.T, c *runConfig) {
		if !c.embedded {
			t.Error("not embedded")
		}
	}, ""},
	{"prefix-cache's shared prefix", []string{"--factor", "prefix-cache"}, func(t *testing.T, c *runConfig) {
		if c.prompt != prefixPrompt {
			t.Errorf("prompt %.40q", c.prompt)
		}
	}, ""},
	{"prefix-cache keeps a given prompt", []string{"--factor", "prefix-cache", "--prompt", "hi"}, func(t *testing.T, c *runConfig) {
		if c.prompt != "hi" {
			t.Errorf("prompt %q", c.prompt)
		}
	}, ""},
	{"max-tokens below 1", []string{"--max-tokens", "0"}, nil, "--max-tokens"},
	{"negative counts", []string{"--requests", "-1"}, nil, "must not be negative"},
}

// TestResolveRules: each rule of resolve, one case a rule, and that the
// flags themselves are left as given.
func TestResolveRules(t *testing.T) {
	for _, c := range resolveRules {
		t.Run(c.name, func(t *testing.T) {
			f, changed := runFlagsFrom(t, c.args...)
			before := *f
			cfg, err := resolve(f, changed)
			if c.usage != "" {
				if err == nil || !strings.Contains(err.Error(), c.usage) {
					t.Fatalf("error %v, want one naming %q", err, c.usage)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			c.check(t, cfg)
			if f.arrivals != before.arrivals || f.burstiness != before.burstiness || f.requests != before.requests || f.ignoreEOS != before.ignoreEOS || f.prompt != before.prompt {
				t.Error("resolve changed the flags")
			}
		})
	}
}

// TestLevelsSizedForStableFigures: a sweep's or a factor's levels run
// several waves, never one request per slot (c=1 was a single 0.1 s
// request); --requests and --duration still size them.
func TestLevelsSizedForStableFigures(t *testing.T) {
	for _, c := range []struct{ concurrency, want int }{{1, 16}, {2, 16}, {4, 32}, {32, 256}} {
		if got := levelRequests(c.concurrency); got != c.want {
			t.Errorf("level of concurrency %d: %d requests, want %d", c.concurrency, got, c.want)
		}
	}
	f := &runFlags{}
	cfg := &runConfig{sweeping: true}
	if p, err := f.profile(cfg, 4, 0); err != nil || p.Requests != 32 {
		t.Errorf("a sweep level of 4: %d requests (%v)", p.Requests, err)
	}
	cfg.requests = 5
	if p, _ := f.profile(cfg, 4, 0); p.Requests != 5 {
		t.Errorf("--requests 5: %d requests", p.Requests)
	}
	if p, _ := f.profile(&runConfig{}, 4, 0); p.Requests != 4 {
		t.Errorf("a single step of 4: %d requests, want one wave", p.Requests)
	}
}
