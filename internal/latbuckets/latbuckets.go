// Package latbuckets holds the histogram bounds tpsbench exports latencies
// in, client-side and from its engine: every bound vLLM's own histograms
// use (vllm/v1/metrics/loggers.py), so a dashboard's quantiles read alike,
// with finer bounds below where a CPU engine's gaps of a few milliseconds
// would otherwise fall into one bucket.
package latbuckets

// TTFT bounds a time to first token, in seconds: vLLM's, up to 2,560 s.
func TTFT() []float64 {
	return []float64{0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10, 20, 40, 80, 160, 640, 2560}
}

// TokenGap bounds a time between tokens or chunks, or per output token:
// vLLM's inter-token bounds (0.01 s up to 80 s) and four below them.
func TokenGap() []float64 {
	return []float64{0.001, 0.0025, 0.005, 0.0075, 0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1, 2.5, 5, 7.5, 10, 20, 40, 80}
}

// Request bounds a request's whole duration: vLLM's end-to-end bounds
// (0.3 s up to 7,680 s) and four below them.
func Request() []float64 {
	return []float64{0.01, 0.025, 0.05, 0.1, 0.3, 0.5, 0.8, 1, 1.5, 2, 2.5, 5, 10, 15, 20, 30, 40, 50, 60, 120, 240, 480, 960, 1920, 7680}
}

// Tokens bounds a token count, as OpenTelemetry's gen_ai.client.token.usage
// advises: powers of 4 from 1 to 67,108,864.
func Tokens() []float64 {
	b := []float64{1}
	for len(b) < 14 {
		b = append(b, b[len(b)-1]*4)
	}
	return b
}

// Phase bounds one HTTP phase of a request (a loopback connect takes
// tens of microseconds, a server's wait for the first byte seconds):
// TTFT's bounds and four below them.
func Phase() []float64 {
	return append([]float64{0.00005, 0.0001, 0.00025, 0.0005}, TTFT()...)
}
