package main

import (
	"fmt"
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
	{"burstiness alone means gamma arrivals", []string{"--rate", "2", "--burstiness", "0.5", "--requests", "4"}, func(t *testing.T, c *runConfig) {
		if c.arrivals != load.Gamma || c.burstiness != 0.5 {
			t.Errorf("arrivals %s burstiness %v", c.arrivals, c.burstiness)
		}
	}, ""},
	{"gamma without burstiness is Poisson's shape", []string{"--rate", "2", "--arrivals", "gamma", "--duration", "3s"}, func(t *testing.T, c *runConfig) {
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
	{"rate sweeps are steps of one target", []string{"--sweep-rates", "1,2", "--requests", "4"}, func(t *testing.T, c *runConfig) {
		if c.levelSweep || !c.sweeping || !slices.Equal(c.rates, []float64{1, 2}) {
			t.Errorf("sweep %v %v, rates %v", c.levelSweep, c.sweeping, c.rates)
		}
	}, ""},
	{"a rate needs a bound", []string{"--rate", "2"}, nil, "--rate 2: give a number of requests or a duration"},
	{"rate sweeps need a bound before anything runs", []string{"--sweep-rates", "auto", "--concurrency", "4"}, nil, "--sweep-rates auto: give a number of requests or a duration"},
	{"rate inf needs requests", []string{"--rate", "inf", "--duration", "2s"}, nil, "--rate inf"},
	{"rate sweep rates", []string{"--sweep-rates", "1,x", "--requests", "4"}, nil, "want request rates"},
	{"rate sweep with a concurrency sweep", []string{"--sweep-rates", "1,2", "--sweep", "1,2", "--requests", "4"}, nil, "--sweep-rates steps through rates"},
	{"auto rate sweep: eight rates, flooded by --requests", []string{"--sweep-rates", "auto", "--requests", "40"}, func(t *testing.T, c *runConfig) {
		if c.autoRates != 8 || c.flood != 40 {
			t.Errorf("auto rates %d, flood %d", c.autoRates, c.flood)
		}
	}, ""},
	{"auto rate sweep of N, flooded by --concurrency", []string{"--sweep-rates", "auto:3", "--requests", "40", "--concurrency", "16"}, func(t *testing.T, c *runConfig) {
		if c.autoRates != 3 || c.flood != 16 {
			t.Errorf("auto rates %d, flood %d", c.autoRates, c.flood)
		}
	}, ""},
	{"auto rate sweep of 0", []string{"--sweep-rates", "auto:0", "--requests", "4"}, nil, "auto:N"},
	{"auto rate sweep of shards", []string{"--sweep-rates", "auto", "--requests", "4", "--shard", "0/2"}, nil, "give the shards explicit rates"},
	{"auto rate sweep of two targets", []string{"--sweep-rates", "auto", "--requests", "4", "--url", "http://127.0.0.1:1", "--model", "a", "--model", "b"}, nil, "give one target"},
	{"auto rate sweep by duration", []string{"--sweep-rates", "auto", "--duration", "5s"}, nil, "give --concurrency for its throughput step"},
	{"find-max of two targets", []string{"--find-max", "--slo", "ttft=1s", "--url", "http://127.0.0.1:1", "--model", "a", "--model", "b"}, nil, "drop extra models"},
	{"synthetic lengths finite", []string{"--input-tokens", "NaN"}, nil, "synthetic lengths"},
	{"a shared prefix needs a group", []string{"--input-tokens", "8", "--prefix-tokens", "4", "--prefix-groups", "0"}, nil, "at least 1 prefix group"},
	{"input tokens bounded", []string{"--input-tokens", "2e6"}, nil, "input and prefix tokens: at most 1048576"},
	{"output tokens bounded", []string{"--input-tokens", "8", "--output-tokens", "2e9"}, nil, "output tokens: at most"},
	{"prompts or input tokens", []string{"--prompts", "p.jsonl", "--input-tokens", "8"}, nil, "not both"},
	{"output tokens go with input tokens", []string{"--prompts", "p.jsonl", "--output-tokens", "8"}, nil, "go with --input-tokens"},
	{"multi-turn goes with prompts", []string{"--multi-turn"}, nil, "--multi-turn goes with --prompts"},
	{"an engine flag with a URL", []string{"--url", "http://127.0.0.1:1", "--engine-kv-cache-dtype", "f16"}, nil, "--engine-kv-cache-dtype applies to the embedded engine"},
	{"the engine speaks chat, completions and embeddings", []string{"--api", "tgi"}, nil, "the embedded engine serves chat, completions and embeddings"},
	{"an unknown factor", []string{"--factor", "vibes"}, nil, "--factor \"vibes\""},
	{"an engine factor with a URL", []string{"--factor", "quantization", "--url", "http://127.0.0.1:1"}, nil, "compares engine configurations"},
	{"server metrics of an engine that does not run", []string{"--url", "http://127.0.0.1:1", "--server-metrics", "engine"}, nil, "no embedded engine runs"},
	{"server metrics at no URL", []string{"--server-metrics", "metrics"}, nil, "want the URL of a Prometheus endpoint"},
	{"start-at", []string{"--start-at", "4102444800"}, func(t *testing.T, c *runConfig) {
		if c.startAt.Unix() != 4102444800 { // 2100-01-01
			t.Errorf("start at %v", c.startAt)
		}
	}, ""},
	{"a ramp without requests", []string{"--ramp-up-strategy", "linear", "--ramp-up-start-rps", "1", "--ramp-up-end-rps", "5"}, nil, "give a number of requests"},
	{"a ramp beside a rate", []string{"--ramp-up-strategy", "linear", "--ramp-up-start-rps", "1", "--ramp-up-end-rps", "5", "--requests", "9", "--rate", "3"}, nil, "not with --rate"},
	{"a ramp of one rate", []string{"--ramp-up-strategy", "exponential", "--ramp-up-start-rps", "1", "--requests", "9"}, nil, "--ramp-up-end-rps 0: a ramp goes between two rates above 0"},
	{"a ramp strategy unknown", []string{"--ramp-up-strategy", "sideways"}, nil, "strategy is linear or exponential"},
	{"cancellations past 100%", []string{"--request-cancellation-rate", "150", "--request-cancellation-delay", "1s"}, nil, "--request-cancellation-rate 150 --request-cancellation-delay 1s: the share of requests to cancel is from 0 to 1 (0% to 100%)"},
	{"cancellations without a delay", []string{"--request-cancellation-rate", "10"}, nil, "--request-cancellation-delay 0s: a planned cancellation needs a delay after the send"},
	{"a cancellation delay alone", []string{"--request-cancellation-delay", "1s"}, nil, "--request-cancellation-rate 0 --request-cancellation-delay 1s: a delay before a planned cancellation goes with a share"},
	{"users ramping up into sessions", []string{"--turns", "2", "--ramp-up-duration", "1s", "--concurrency", "2"}, func(t *testing.T, c *runConfig) {}, ""},
	{"sessions with a cool-down", []string{"--turns", "2", "--duration", "3s", "--cool-down-duration", "1s"}, func(t *testing.T, c *runConfig) {}, ""},
	{"a cool-down past the duration", []string{"--duration", "1s", "--cool-down-duration", "2s"}, nil, "a cool-down is the end of a step's duration"},
	{"a ramp-up of a trace", []string{"--trace", "t.jsonl", "--ramp-up-duration", "2s"}, nil, "not with --trace"},
	{"a rate of 0", []string{"--rate", "0", "--requests", "4"}, nil, "--rate 0: want requests per second above 0"},
	{"no requests", []string{"--requests", "0"}, nil, "--requests 0: want at least 1"},
	{"an empty prompt", []string{"--prompt", ""}, nil, "an empty prompt asks for nothing"},
	{"a negative rate, alone", []string{"--rate", "-2", "--requests", "4"}, nil, "--rate -2: must not be negative"},
	{"a session of one turn", []string{"--turns", "1"}, nil, "--turns 1"},
	{"negative turns", []string{"--turns", "-2"}, nil, "must not be negative"},
	{"a think time with a rate", []string{"--think-time", "2s", "--rate", "3", "--requests", "5"}, nil, "no --rate"},
	{"users with a think time", []string{"--think-time", "2s", "--concurrency", "4"}, func(t *testing.T, c *runConfig) {}, ""},
	{"synthetic sessions and ShareGPT's", []string{"--turns", "3", "--multi-turn", "--prompts", "f.json"}, nil, "give one of them"},
	// the Kubernetes example once shipped a time already passed
	{"start-at long past", []string{"--start-at", "2026-12-01T12:00:00Z"}, nil, "--start-at 2026-12-01T12:00:00Z was"},
	{"start-at unreadable", []string{"--start-at", "noon"}, nil, "--start-at"},
	{"shard", []string{"--shard", "1/3"}, func(t *testing.T, c *runConfig) {
		if c.shardI != 1 || c.shardN != 3 {
			t.Errorf("shard %d/%d", c.shardI, c.shardN)
		}
	}, ""},
	{"shard out of range", []string{"--shard", "3/3"}, nil, "--shard"},
	{"target specs", []string{"--target", "a=http://127.0.0.1:1#m"}, func(t *testing.T, c *runConfig) {
		if len(c.specs) != 1 || c.specs[0] != (target{name: "a", url: "http://127.0.0.1:1", model: "m"}) || c.embedded {
			t.Errorf("specs %+v, embedded %v", c.specs, c.embedded)
		}
	}, ""},
	{"a target without a model", []string{"--target", "a=http://127.0.0.1:1"}, nil, "no #MODEL"},
	{"targets and a URL", []string{"--target", "a=http://127.0.0.1:1#m", "--url", "http://127.0.0.1:2"}, nil, "not both"},
	{"a URL that is none", []string{"--url", "127.0.0.1:8000"}, nil, "--url"},
	{"sampling parameters given are sent, the others left to the server", []string{"--top-p", "0.9", "--top-k", "0", "--stop", "a,b", "--stop", "END"}, func(t *testing.T, c *runConfig) {
		s := c.sampling
		if s.TopP == nil || *s.TopP != 0.9 || s.TopK == nil || *s.TopK != 0 || s.MinP != nil || s.RepetitionPenalty != nil || !slices.Equal(s.Stop, []string{"a,b", "END"}) {
			t.Errorf("sampling %+v", s)
		}
	}, ""},
	{"a sampling parameter that is no number", []string{"--min-p", "NaN"}, nil, "--min-p: want a finite number"},
	{"extra body fields", []string{"--extra-body", `{"priority": 12345678901234567890, "chat_template_kwargs": {"enable_thinking": false}}`}, func(t *testing.T, c *runConfig) {
		if fmt.Sprint(c.extra["priority"]) != "12345678901234567890" || c.extra["chat_template_kwargs"] == nil {
			t.Errorf("extra %v", c.extra)
		}
	}, ""},
	{"an extra body that is no object", []string{"--extra-body", `[1]`}, nil, "--extra-body: want one JSON object"},
	{"an extra body of two objects", []string{"--extra-body", `{} {}`}, nil, "--extra-body"},
	{"Anthropic's key variable", []string{"--url", "http://127.0.0.1:1", "--api", "anthropic"}, func(t *testing.T, c *runConfig) {
		if c.apiKeyEnv != "ANTHROPIC_API_KEY" {
			t.Errorf("key from %s", c.apiKeyEnv)
		}
	}, ""},
	{"a key variable named", []string{"--url", "http://127.0.0.1:1", "--api", "anthropic", "--api-key-env", "GATEWAY_KEY"}, func(t *testing.T, c *runConfig) {
		if c.apiKeyEnv != "GATEWAY_KEY" {
			t.Errorf("key from %s", c.apiKeyEnv)
		}
	}, ""},
	{"a target's URL that is none", []string{"--target", "a=127.0.0.1:1#m"}, nil, "--target a: server URL"},
	{"a tokenizer that is none", []string{"--tokenizer", "no-such-encoding"}, nil, "tokenizer \"no-such-encoding\""},
	{"whole responses counted by cl100k", []string{"--no-stream"}, func(t *testing.T, c *runConfig) {
		if c.counter.Name != "cl100k" || c.counter.Count("hello world") != 2 {
			t.Errorf("counter %q", c.counter.Name)
		}
	}, ""},
	{"show-tokens is one request", []string{"--show-tokens"}, func(t *testing.T, c *runConfig) {
		if c.requests != 1 {
			t.Errorf("requests %d", c.requests)
		}
	}, ""},
	{"show-tokens with a sweep", []string{"--show-tokens", "--sweep", "1,2"}, nil, "--show-tokens"},
	{"find-max needs targets", []string{"--find-max"}, nil, "a search (--find-max, --search-space) needs targets"},
	{"find-max and a rate", []string{"--find-max", "--slo", "ttft=1s", "--rate", "3"}, nil, "varies one target's load"},
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
	{"a negative ready check", []string{"--ready-check-timeout", "-1s"}, nil, "--ready-check-timeout -1s: must not be negative"},
	{"negative max errors", []string{"--max-errors", "-2"}, nil, "--max-errors -2: must not be negative"},
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
	if p, err := f.profile(cfg, nil, 4, 0); err != nil || p.Requests != 32 {
		t.Errorf("a sweep level of 4: %d requests (%v)", p.Requests, err)
	}
	cfg.requests = 5
	if p, _ := f.profile(cfg, nil, 4, 0); p.Requests != 5 {
		t.Errorf("--requests 5: %d requests", p.Requests)
	}
	if p, _ := f.profile(&runConfig{}, nil, 4, 0); p.Requests != 4 {
		t.Errorf("a single step of 4: %d requests, want one wave", p.Requests)
	}
	models := &runFlags{models: []string{"a", "b"}}
	if p, _ := models.profile(&runConfig{}, nil, 1, 0); p.Requests != 16 {
		t.Errorf("a comparison of two models at concurrency 1: %d requests each, want a level's 16", p.Requests)
	}
}
