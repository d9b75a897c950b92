package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// peerFlags are other benchmark clients' flags a user of them types, and
// what tpsbench calls them (docs/flags.md's tables, which a test holds
// these to).
var peerFlags = map[string]string{
	"--num-prompts":                 "--requests (vLLM's --num-prompts)",
	"--request-rate":                "--rate (vLLM's and AIPerf's --request-rate)",
	"--base-url":                    "--url (vLLM's --base-url)",
	"--host":                        "--url (vLLM's --host and --port)",
	"--port":                        "--url (vLLM's --host and --port)",
	"--dataset-name":                "--prompts FILE, or --input-tokens for random prompts (vLLM's --dataset-name)",
	"--dataset-path":                "--prompts (vLLM's --dataset-path)",
	"--random-input-len":            "--input-tokens (vLLM's --random-input-len)",
	"--random-output-len":           "--output-tokens (vLLM's --random-output-len)",
	"--random-prefix-len":           "--prefix-tokens (vLLM's --random-prefix-len)",
	"--num-warmups":                 "--warmup (vLLM's --num-warmups)",
	"--save-result":                 "--format json --out FILE (vLLM's --save-result)",
	"--goodput":                     "--slo (vLLM's and AIPerf's --goodput)",
	"--metric-percentiles":          "--percentiles (vLLM's --metric-percentiles)",
	"--max-requests":                "--requests (GuideLLM's --max-requests)",
	"--max-seconds":                 "--duration (GuideLLM's --max-seconds)",
	"--rate-type":                   "--concurrency, --rate or --sweep-rates (GuideLLM's --rate-type)",
	"--data":                        "--prompts FILE, or --input-tokens and --output-tokens (GuideLLM's --data)",
	"--output-path":                 "--out with --format (GuideLLM's --output-path)",
	"--request-count":               "--requests (AIPerf's --request-count)",
	"--benchmark-duration":          "--duration (AIPerf's --benchmark-duration)",
	"--endpoint-type":               "--api (AIPerf's --endpoint-type)",
	"--streaming":                   "nothing: streaming is the default (--no-stream asks for whole answers)",
	"--warmup-request-count":        "--warmup (AIPerf's --warmup-request-count)",
	"--synthetic-input-tokens-mean": "--input-tokens (AIPerf's --synthetic-input-tokens-mean)",
	"--output-tokens-mean":          "--output-tokens (AIPerf's --output-tokens-mean)",
	"--num-profile-runs":            "--repeat (AIPerf's --num-profile-runs)",
	"--conversation-turn-mean":      "--turns (AIPerf's --conversation-turn-mean)",
}

// flagError says what a mistyped flag should have been: the tpsbench name
// of another tool's flag, or the nearest of the command's own.
func flagError(cmd *cobra.Command, err error) error {
	msg := err.Error()
	if strings.Contains(msg, "missing unit in duration") {
		return usagef("%s (a duration has a unit: 2s, 500ms, 1m)", msg)
	}
	name, unknown := strings.CutPrefix(msg, "unknown flag: ")
	if !unknown {
		return usageError{err}
	}
	name, _, _ = strings.Cut(name, "=")
	if ours, ok := peerFlags[name]; ok {
		return usagef("%s: tpsbench's is %s", msg, ours)
	}
	if near := nearestFlag(cmd, strings.TrimPrefix(name, "--")); near != "" {
		return usagef("%s (did you mean --%s?)", msg, near)
	}
	return usageError{err}
}

// nearestFlag is the command's flag nearest to name, within two edits
// (or one for a name of four letters or fewer), or "".
func nearestFlag(cmd *cobra.Command, name string) string {
	best, bestD := "", 3
	if len(name) <= 4 {
		bestD = 2
	}
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		if f.Hidden {
			return
		}
		if d := editDistance(name, f.Name); d < bestD {
			best, bestD = f.Name, d
		}
	})
	return best
}

// editDistance is the Levenshtein distance of a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

// usageHint is where the help of the command that failed is.
func usageHint(cmd *cobra.Command) string {
	if cmd == nil {
		return "tpsbench --help"
	}
	return fmt.Sprintf("%s --help", cmd.CommandPath())
}
