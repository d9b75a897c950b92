//go:build unix

// Command clientbench measures tpsbench's streaming client against a
// scripted server in another process: token events ingested per CPU-second
// when the server floods, and CPU per event and timing error when tokens
// are paced. With -impl plain it measures instead a plain Go client
// (net/http, bufio.Scanner, encoding/json on every event), the baseline the
// client must beat. It prints one JSON line; bench/client.sh drives it.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"runtime/pprof"
	"runtime/trace"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/tpsbench/tpsbench"
	"github.com/tpsbench/tpsbench/client"
	"github.com/tpsbench/tpsbench/internal/proccpu"
	"github.com/tpsbench/tpsbench/load"
	"github.com/tpsbench/tpsbench/monitor"
	"github.com/tpsbench/tpsbench/record"
	"github.com/tpsbench/tpsbench/workload"
)

// result is what one measurement printed.
type result struct {
	Impl            string  `json:"impl"`
	Mode            string  `json:"mode"`
	Streams         int     `json:"streams"`
	Events          int64   `json:"events"`
	CPUSeconds      float64 `json:"cpu_s"`
	WallSeconds     float64 `json:"wall_s"`
	EventsPerCPUSec float64 `json:"events_per_cpu_s"`
	CPUPerEventUS   float64 `json:"cpu_per_event_us"`
	MaxRSSMB        float64 `json:"max_rss_mb"`
	Requests        int     `json:"requests"`
	Failed          int     `json:"failed"`
	// Timing error against the server's own send log (paced mode).
	ITLErrP50MS   float64 `json:"itl_err_p50_ms,omitempty"`
	ITLErrP99MS   float64 `json:"itl_err_p99_ms,omitempty"`
	TTFTErrP50MS  float64 `json:"ttft_err_p50_ms,omitempty"`
	TTFTErrP99MS  float64 `json:"ttft_err_p99_ms,omitempty"`
	ShareITLUnder float64 `json:"share_itl_under_50us"`
	// Arrival delay: client arrival - server send of each event (one
	// machine, one clock).
	DelayP50MS    float64 `json:"delay_p50_ms,omitempty"`
	DelayP99MS    float64 `json:"delay_p99_ms,omitempty"`
	ClientTTFTP50 float64 `json:"client_ttft_p50_ms,omitempty"`
	// ITL p99 as the client saw it and as the server's log has it; the
	// share of the client's ITLs more than 1 ms below the server's gap
	// between the same two events (two events in one read, or the first
	// read late).
	ClientITLP99MS float64 `json:"client_itl_p99_ms,omitempty"`
	ServerITLP99MS float64 `json:"server_itl_p99_ms,omitempty"`
	BatchedShare   float64 `json:"batched_share"`
	// Send lag: a request's send after it was due (tpsbench only).
	SendLagP50MS float64 `json:"send_lag_p50_ms,omitempty"`
	SendLagP99MS float64 `json:"send_lag_p99_ms,omitempty"`
	KBPerStream  float64 `json:"kb_per_stream"`
	// Client processes (-merge), each with its share of the streams.
	Shards int `json:"shards,omitempty"`
	// A request's write alone (sendfloor mode).
	WriteUS float64 `json:"write_us,omitempty"`
}

// stream is one response as a client saw it: its id, when it was sent and
// when each token event arrived (Unix ns).
type stream struct {
	ID     string        `json:"id"`
	Sent   int64         `json:"sent"`
	Lag    time.Duration `json:"lag"` // sent after it was due
	Events []int64       `json:"events"`
}

func maxRSS() float64 {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return float64(ru.Maxrss) / 1024 // Linux reports KB
}

func cpuSeconds() float64 {
	used, _ := proccpu.Used()
	return used.Seconds()
}

func main() {
	url := flag.String("url", "http://127.0.0.1:8001", "scripted server")
	impl := flag.String("impl", "tpsbench", "tpsbench or plain")
	mode := flag.String("mode", "flood", "flood or paced (labels the output; the server decides the pacing)")
	streams := flag.Int("streams", 8, "concurrent streams")
	tokens := flag.Int("tokens", 20000, "tokens per request")
	requests := flag.Int("requests", 0, "requests in all (default: one a stream)")
	rate := flag.Float64("rate", 0, "start requests at this Poisson rate a second, up to -streams at once (default: all at once)")
	profile := flag.String("cpuprofile", "", "write a CPU profile of the client here")
	traceTo := flag.String("trace", "", "write the Go runtime's execution trace of the client here (go tool trace)")
	liveCount := flag.Bool("live", false, "count every chunk live, as run's progress line and --metrics-addr exporter do")
	shard := flag.String("shard", "", "run share I of N of the load (I/N, as tpsbench run --shard), its streams and requests")
	startAt := flag.Int64("start-at", 0, "wait until this Unix time in ms before starting, so that shards start together")
	dump := flag.String("dump", "", "write what was measured to this file instead of a result (for -merge)")
	merge := flag.String("merge", "", "summarize the dumps of these shards (comma-separated files) as one run")
	flag.Parse()
	shardIndex, shardCount := 0, 1
	if *shard != "" {
		if _, err := fmt.Sscanf(*shard, "%d/%d", &shardIndex, &shardCount); err != nil {
			fmt.Fprintln(os.Stderr, "clientbench: -shard I/N:", err)
			os.Exit(2)
		}
	}
	// a profile or trace asked for and not written would leave a run
	// that looks measured and is not: refuse it at once
	if *profile != "" {
		f, err := os.Create(*profile)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "clientbench: -cpuprofile:", err)
			os.Exit(2)
		}
		defer pprof.StopCPUProfile()
	}
	if *traceTo != "" {
		f, err := os.Create(*traceTo)
		if err == nil {
			err = trace.Start(f)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "clientbench: -trace:", err)
			os.Exit(2)
		}
		defer trace.Stop()
	}

	if *mode == "sendfloor" {
		_ = json.NewEncoder(os.Stdout).Encode(sendFloor(*url, *streams, *tokens))
		return
	}
	if *merge != "" {
		_ = json.NewEncoder(os.Stdout).Encode(mergeShards(*url, *mode, strings.Split(*merge, ",")))
		return
	}
	var got []stream
	var err error
	cpu0, wall0 := cpuSeconds(), time.Now()
	switch *impl {
	case "tpsbench":
		prof := load.Profile{Shape: load.Users{Count: *streams}, Requests: max(*requests, *streams), Seed: 1}
		if *rate > 0 {
			prof.Shape, prof.MaxInFlight = load.Rate{PerSecond: *rate, Gaps: load.Gaps{Process: load.Poisson}}, *streams
		}
		if prof, err = prof.Shard(shardIndex, shardCount); err != nil {
			fmt.Fprintln(os.Stderr, "clientbench:", err)
			os.Exit(2)
		}
		*streams = prof.Limit()
		time.Sleep(time.Until(time.UnixMilli(*startAt)))
		cpu0, wall0 = cpuSeconds(), time.Now()
		got = runTpsbench(*url, prof, *tokens, *liveCount)
	case "plain":
		got = runPlain(*url, *streams, *tokens)
	default:
		fmt.Fprintln(os.Stderr, "clientbench: -impl tpsbench|plain")
		os.Exit(2)
	}
	m := measured{Streams: *streams, CPUSeconds: cpuSeconds() - cpu0, WallSeconds: time.Since(wall0).Seconds(), MaxRSSMB: maxRSS(), Got: got}
	if *dump != "" {
		if err := writeDump(*dump, m); err != nil {
			fmt.Fprintln(os.Stderr, "clientbench:", err)
			os.Exit(1)
		}
		return
	}
	_ = json.NewEncoder(os.Stdout).Encode(summarize(*url, *impl, *mode, m))
}

// measured is what one process measured: its streams as it saw them, and
// what it took. Shards (-shard) each write theirs (-dump); -merge sums
// them into one result, the percentiles over the union of their streams.
type measured struct {
	Streams     int      `json:"streams"`
	CPUSeconds  float64  `json:"cpu_s"`
	WallSeconds float64  `json:"wall_s"`
	MaxRSSMB    float64  `json:"max_rss_mb"`
	Got         []stream `json:"got"`
}

func writeDump(path string, m measured) error {
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}

// mergeShards reads the shards' dumps and summarizes them as one run: CPU
// and peak RSS summed (the shards ran at once), wall time the longest.
func mergeShards(url, mode string, paths []string) result {
	var all measured
	for _, p := range paths {
		b, err := os.ReadFile(p)
		var m measured
		if err == nil {
			err = json.Unmarshal(b, &m)
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "clientbench: reading shard %s: %v\n", p, err)
			os.Exit(1)
		}
		all.Streams += m.Streams
		all.CPUSeconds += m.CPUSeconds
		all.WallSeconds = max(all.WallSeconds, m.WallSeconds)
		all.MaxRSSMB += m.MaxRSSMB
		all.Got = append(all.Got, m.Got...)
	}
	res := summarize(url, "tpsbench", mode, all)
	res.Shards = len(paths)
	return res
}

func summarize(url, impl, mode string, m measured) result {
	res := result{Impl: impl, Mode: mode, Streams: m.Streams, CPUSeconds: m.CPUSeconds, WallSeconds: m.WallSeconds, Requests: len(m.Got), MaxRSSMB: m.MaxRSSMB}
	res.KBPerStream = res.MaxRSSMB * 1024 / float64(m.Streams)
	got := m.Got
	var ttfts, lags []float64
	for _, s := range got {
		lags = append(lags, float64(s.Lag)/1e6)
	}
	if impl == "tpsbench" {
		res.SendLagP50MS, res.SendLagP99MS = pct(lags, 50), pct(lags, 99)
	}
	for _, s := range got {
		if len(s.Events) == 0 {
			res.Failed++
			continue
		}
		res.Events += int64(len(s.Events))
		ttfts = append(ttfts, float64(s.Events[0]-s.Sent)/1e6)
	}
	res.EventsPerCPUSec = float64(res.Events) / m.CPUSeconds
	res.CPUPerEventUS = m.CPUSeconds / float64(res.Events) * 1e6
	res.ClientTTFTP50 = pct(ttfts, 50)
	if mode == "paced" {
		timingError(url, got, &res)
	}
	return res
}

func runTpsbench(url string, prof load.Profile, tokens int, liveCount bool) []stream {
	clock := record.NewClock()
	cl, err := client.NewHTTP(client.HTTPConfig{URL: url, Stream: true, Concurrency: prof.Limit(), Clock: clock})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	var out []stream
	plan := tpsbench.Plan{Clock: clock, Steps: []tpsbench.Step{{
		Label: "bench", Model: "m", Client: cl,
		Profile:  prof,
		Workload: workload.Fixed{Prompt: "p", MaxTokens: tokens},
	}}}
	observers := tpsbench.Observers{tpsbench.ObserverFuncs{OnDone: func(r *record.Record) {
		s := stream{ID: r.ResponseID, Sent: r.T0 + r.Sent, Lag: r.ClientLag()}
		if r.OK() {
			for _, c := range r.Chunks {
				s.Events = append(s.Events, r.T0+r.Sent+c.At)
			}
		}
		out = append(out, s)
	}}}
	if liveCount {
		// what a run with its progress line and exporter does per chunk
		var tokens atomic.Int64
		exp := monitor.NewExporter()
		observers = append(observers,
			tpsbench.ObserverFuncs{OnChunk: func(_ *record.Record, n int) { tokens.Add(int64(n)) }},
			tpsbench.ObserverFuncs{OnSend: exp.Sent, OnChunk: exp.Chunk, OnDone: exp.Observe})
	}
	plan.Observer = observers
	if _, err := tpsbench.Run(context.Background(), plan); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	return out
}

// runPlain is how a Go programmer would write a streaming client without
// thinking about timing: scan lines, decode each event's JSON, then stamp.
func runPlain(url string, streams, tokens int) []stream {
	tr := &http.Transport{MaxIdleConnsPerHost: streams, DisableCompression: true}
	hc := &http.Client{Transport: tr}
	out := make([]stream, streams)
	var wg sync.WaitGroup
	epoch := time.Now()
	wall := func() int64 { return epoch.UnixNano() + int64(time.Since(epoch)) }
	for i := range streams {
		wg.Go(func() {
			body := fmt.Sprintf(`{"model":"m","messages":[{"role":"user","content":"p"}],"max_tokens":%d,"stream":true,"stream_options":{"include_usage":true}}`, tokens)
			s := &out[i]
			s.Sent = wall()
			resp, err := hc.Post(strings.TrimRight(url, "/")+"/v1/chat/completions", "application/json", strings.NewReader(body))
			if err != nil {
				return
			}
			defer resp.Body.Close()
			sc := bufio.NewScanner(resp.Body)
			sc.Buffer(make([]byte, 64<<10), 8<<20)
			for sc.Scan() {
				line := sc.Bytes()
				if !bytes.HasPrefix(line, []byte("data: ")) {
					continue
				}
				data := line[6:]
				if string(data) == "[DONE]" {
					break
				}
				var ev struct {
					ID      string `json:"id"`
					Choices []struct {
						Delta struct {
							Content string `json:"content"`
						} `json:"delta"`
					} `json:"choices"`
				}
				if json.Unmarshal(data, &ev) != nil {
					continue
				}
				if s.ID == "" {
					s.ID = ev.ID
				}
				if len(ev.Choices) > 0 && ev.Choices[0].Delta.Content != "" {
					s.Events = append(s.Events, wall())
				}
			}
		})
	}
	wg.Wait()
	return out
}

// timingError joins each stream with the server's send log.
func timingError(url string, got []stream, res *result) {
	resp, err := http.Get(strings.TrimRight(url, "/") + "/debug/sent")
	if err != nil {
		fmt.Fprintln(os.Stderr, "fetching server log:", err)
		os.Exit(1)
	}
	defer resp.Body.Close()
	type sent struct {
		ID       string  `json:"id"`
		Received int64   `json:"received"`
		Events   []int64 `json:"events"`
	}
	logs := map[string]sent{}
	dec := json.NewDecoder(resp.Body)
	for {
		var s sent
		if err := dec.Decode(&s); err == io.EOF {
			break
		} else if err != nil {
			fmt.Fprintln(os.Stderr, "reading server log:", err)
			os.Exit(1)
		}
		logs[s.ID] = s
	}
	var itlErr, ttftErr, delay, clientITL, serverITL []float64
	under, itls := 0, 0
	batched := 0
	for _, s := range got {
		l, ok := logs[s.ID]
		if !ok || len(l.Events) != len(s.Events) || len(s.Events) == 0 {
			continue
		}
		// TTFT: the client's (first arrival - sent) against the server's
		// (first send - received); the difference is transit both ways.
		ttftErr = append(ttftErr, abs(float64((s.Events[0]-s.Sent)-(l.Events[0]-l.Received)))/1e6)
		for i := range s.Events {
			delay = append(delay, float64(s.Events[i]-l.Events[i])/1e6)
		}
		for i := 1; i < len(s.Events); i++ {
			c := s.Events[i] - s.Events[i-1]
			v := l.Events[i] - l.Events[i-1]
			itlErr = append(itlErr, abs(float64(c-v))/1e6)
			clientITL, serverITL = append(clientITL, float64(c)/1e6), append(serverITL, float64(v)/1e6)
			if c < v-1e6 {
				batched++
			}
			itls++
			if c < 50_000 {
				under++
			}
		}
	}
	res.ITLErrP50MS, res.ITLErrP99MS = pct(itlErr, 50), pct(itlErr, 99)
	res.TTFTErrP50MS, res.TTFTErrP99MS = pct(ttftErr, 50), pct(ttftErr, 99)
	res.DelayP50MS, res.DelayP99MS = pct(delay, 50), pct(delay, 99)
	res.ClientITLP99MS, res.ServerITLP99MS = pct(clientITL, 99), pct(serverITL, 99)
	if itls > 0 {
		res.ShareITLUnder = float64(under) / float64(itls)
		res.BatchedShare = float64(batched) / float64(itls)
	}
}

func abs(v float64) float64 {
	if v < 0 {
		return -v
	}
	return v
}

func pct(v []float64, p float64) float64 {
	if len(v) == 0 {
		return 0
	}
	sort.Float64s(v)
	i := int(p / 100 * float64(len(v)-1))
	return v[i]
}

// sendFloor is what the kernel alone takes to send n requests due at
// once from one goroutine: a request's bytes written to each of n
// connections already open, in turn, and nothing else. No client on this
// core sends the last of them sooner; the send lags it prints are that
// floor's.
func sendFloor(url string, n, tokens int) result {
	addr := strings.TrimPrefix(url, "http://")
	conns := make([]net.Conn, 0, n)
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for range n {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			fmt.Fprintln(os.Stderr, "clientbench:", err)
			os.Exit(1)
		}
		conns = append(conns, c)
	}
	body := fmt.Sprintf(`{"max_tokens":%d,"messages":[{"content":"p","role":"user"}],"model":"scripted","stream":true,"stream_options":{"include_usage":true}}`, tokens)
	req := []byte(fmt.Sprintf("POST /v1/chat/completions HTTP/1.1\r\nHost: %s\r\nUser-Agent: tpsbench\r\nAccept: text/event-stream\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", addr, len(body), body))
	time.Sleep(200 * time.Millisecond) // the server has taken every connection
	at := make([]float64, n)
	start := time.Now()
	for i, c := range conns {
		if _, err := c.Write(req); err != nil {
			fmt.Fprintln(os.Stderr, "clientbench:", err)
			os.Exit(1)
		}
		at[i] = float64(time.Since(start)) / 1e6
	}
	res := result{Impl: "kernel", Mode: "sendfloor", Streams: n, Requests: n}
	res.WriteUS = at[n-1] * 1000 / float64(n)
	res.SendLagP50MS, res.SendLagP99MS = pct(at, 50), pct(at, 99)
	return res
}
