//go:build unix

// Command sinkclient streams requests from an OpenAI-compatible server and
// reads nothing until they have all ended: the server's cost of serving
// streams over HTTP without a client's reads on the same cores. Its
// sockets are blocking ones that Go's poller never watches, so a chunk
// arriving wakes no thread; the kernel queues it (a 128-token answer is
// about 25 kB) until the wave is over. Each wave sends -concurrency
// requests at once and waits until every answer has come whole; then the
// answers are read and checked. The server's /metrics are read before
// the first wave and after the last, and their differences printed as
// JSON: its mean inter-token latency (a decode step of the batch, as the
// engine schedules one a token), engine steps and tokens generated.
// bench/httpcost.sh sets them beside the same server under tpsbench run
// and the engine in process.
//
//	sinkclient -url http://127.0.0.1:8000 -model tpsbench-15m-f32 -concurrency 32 -waves 4
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/url"
	"os"
	"syscall"
	"time"

	"github.com/tpsbench/tpsbench/servermetrics"
)

func main() {
	base := flag.String("url", "http://127.0.0.1:8000", "the server's base URL")
	model := flag.String("model", "", "the model to ask for")
	concurrency := flag.Int("concurrency", 32, "requests a wave, sent at once")
	waves := flag.Int("waves", 4, "waves, one after another")
	maxTokens := flag.Int("max-tokens", 128, "tokens each request generates (ignore_eos)")
	timeout := flag.Duration("timeout", 5*time.Minute, "longest a wave may take")
	flag.Parse()
	if err := run(*base, *model, *concurrency, *waves, *maxTokens, *timeout); err != nil {
		fmt.Fprintln(os.Stderr, "sinkclient:", err)
		os.Exit(1)
	}
}

// result is the server's account of the waves.
type result struct {
	Requests         int     `json:"requests"`
	ITLMeanMS        float64 `json:"itl_mean_ms"`
	EngineSteps      float64 `json:"engine_steps"`
	GenerationTokens float64 `json:"generation_tokens"`
}

func run(base, model string, concurrency, waves, maxTokens int, timeout time.Duration) error {
	if concurrency < 1 || waves < 1 || maxTokens < 1 {
		return errors.New("-concurrency, -waves and -max-tokens must be positive")
	}
	u, err := url.Parse(base)
	if err != nil || u.Scheme != "http" || u.Host == "" {
		return fmt.Errorf("-url %q: want http://host:port", base)
	}
	addr, err := net.ResolveTCPAddr("tcp4", u.Host)
	if err != nil {
		return fmt.Errorf("-url %q: %w", base, err)
	}
	body, _ := json.Marshal(map[string]any{
		"model": model, "messages": []map[string]string{{"role": "user", "content": "Explain AI"}},
		"max_tokens": maxTokens, "stream": true, "ignore_eos": true,
	})
	// tpsbench run's default request, but that every answer is whole
	req := fmt.Appendf(nil, "POST /v1/chat/completions HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s", u.Host, len(body), body)
	scraper := &servermetrics.Scraper{URL: base + "/metrics"}
	ctx := context.Background()
	before, err := scraper.Scrape(ctx)
	if err != nil {
		return err
	}
	for w := range waves {
		if err := wave(addr, req, concurrency, timeout); err != nil {
			return fmt.Errorf("wave %d: %w", w+1, err)
		}
	}
	after, err := scraper.Scrape(ctx)
	if err != nil {
		return err
	}
	diff := func(name string) float64 { return after[name] - before[name] }
	gaps := diff("vllm:inter_token_latency_seconds_count")
	if gaps <= 0 {
		return errors.New("the server's metrics counted no inter-token latencies (is it vLLM-compatible?)")
	}
	out, _ := json.Marshal(result{
		Requests:         concurrency * waves,
		ITLMeanMS:        diff("vllm:inter_token_latency_seconds_sum") / gaps * 1e3,
		EngineSteps:      diff("vllm:iteration_tokens_total_count"),
		GenerationTokens: diff("vllm:generation_tokens_total"),
	})
	fmt.Println(string(out))
	return nil
}

// wave sends n requests on blocking sockets, waits until every answer
// has come whole, then reads and checks them.
func wave(addr *net.TCPAddr, req []byte, n int, timeout time.Duration) error {
	fds := make([]int, 0, n)
	defer func() {
		for _, fd := range fds {
			syscall.Close(fd)
		}
	}()
	sa := &syscall.SockaddrInet4{Port: addr.Port}
	copy(sa.Addr[:], addr.IP.To4())
	for range n {
		fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 0)
		if err != nil {
			return fmt.Errorf("socket: %w", err)
		}
		fds = append(fds, fd)
		if err := syscall.Connect(fd, sa); err != nil {
			return fmt.Errorf("connecting to %s: %w", addr, err)
		}
		for sent := 0; sent < len(req); {
			k, err := syscall.Write(fd, req[sent:])
			if err != nil {
				return fmt.Errorf("sending: %w", err)
			}
			sent += k
		}
	}
	// Whether an answer is whole is seen by peeking at what the kernel
	// holds, which leaves it unread and asks nothing of the server: reading
	// its /metrics every 50 ms instead made its steps 5-15% longer at batch
	// 1 (each scrape is a request to serve, and wakes its runtime's sysmon).
	deadline := time.Now().Add(timeout)
	peek := make([]byte, 1<<20)
	whole := make([]bool, n)
	for left := n; left > 0; {
		time.Sleep(20 * time.Millisecond)
		for i, fd := range fds {
			if whole[i] {
				continue
			}
			k, _, err := syscall.Recvfrom(fd, peek, syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
			if err != nil || k < len("HTTP/1.1 200") {
				continue // nothing yet, or too little to tell
			}
			if !bytes.HasPrefix(peek[:k], []byte("HTTP/1.1 200")) {
				return fmt.Errorf("request %d was refused: %q", i+1, peek[:min(k, 512)])
			}
			if bytes.Contains(peek[:k], []byte("data: [DONE]")) {
				whole[i] = true
				left--
			}
		}
		if left > 0 && time.Now().After(deadline) {
			return fmt.Errorf("%d of %d answers were not whole after %s", left, n, timeout)
		}
	}
	for i, fd := range fds {
		answer, err := readAll(fd)
		if err != nil {
			return fmt.Errorf("reading answer %d: %w", i+1, err)
		}
		if !bytes.HasPrefix(answer, []byte("HTTP/1.1 200")) || !bytes.Contains(answer, []byte("data: [DONE]")) {
			return fmt.Errorf("answer %d is not a whole streamed completion: %q", i+1, answer[:min(len(answer), 200)])
		}
	}
	return nil
}

// readAll reads fd until the server closes it (each request asked it to).
// An answer longer than the socket's buffers (or the peek's 1 MB) would
// have held the server's writes back; at 128 tokens (about 25 kB) it is
// far from them.
func readAll(fd int) ([]byte, error) {
	var out []byte
	buf := make([]byte, 64<<10)
	for {
		k, err := syscall.Read(fd, buf)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return out, err
		}
		if k == 0 {
			return out, nil
		}
		out = append(out, buf[:k]...)
	}
}
