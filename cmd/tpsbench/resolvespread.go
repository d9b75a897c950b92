package main

import (
	"strings"
	"time"

	"github.com/tpsbench/tpsbench/client"
	"github.com/tpsbench/tpsbench/workload"
)

// resolveSpread: how a run spreads over runs, servers and models
// (--repeat, --replica, --balance, --lora-modules).
func resolveSpread(f *runFlags, c *runConfig) error {
	var err error
	switch {
	case f.repeat < 1 || f.repeat > 1000:
		return usagef("--repeat %d: want 1 to 1000 runs", f.repeat)
	case f.repeat > 1 && (f.trace != "" || strings.HasPrefix(f.sweepRates, "auto")):
		return usagef("--repeat runs a fixed plan again: not with --trace or --sweep-rates auto, whose steps depend on what they measure (a search, --find-max or --search-space, repeats each probe)")
	case len(f.replicas) > 0 && (f.url == "" || len(f.targets) > 0):
		return usagef("--replica adds servers beside --url: give --url (and no --target)")
	case f.balance != client.BalanceRoundRobin && f.balance != client.BalanceLeastInFlight:
		return usagef("--balance %q: want round-robin or least-in-flight", f.balance)
	case f.loraAssign != workload.AssignRandom && f.loraAssign != workload.AssignRoundRobin:
		return usagef("--lora-assignment %q: want random or round-robin", f.loraAssign)
	case f.loraModules != "" && (f.trace != "" || len(f.models) > 1 || len(f.targets) > 0):
		return usagef("--lora-modules mixes models in one step: not with --trace, several --model or --target")
	}
	for _, u := range f.replicas {
		if _, _, err := client.Endpoint(u, client.APIChat); err != nil {
			return usagef("--replica: %v", err)
		}
	}
	if f.loraModules != "" {
		if c.lora, c.loraWeights, err = workload.ParseModelMix(f.loraModules); err != nil {
			return usagef("--lora-modules: %v", err)
		}
	}
	return nil
}

// resolveSources reads what prompts are made of and how servers are
// trusted (--corpus, --seq-dist, TLS).
func resolveSources(f *runFlags, c *runConfig) error {
	var err error
	if f.corpus != "" {
		if f.inputTokens == 0 && f.seqDist == "" {
			return usagef("--corpus makes synthetic prompts: give --input-tokens or --seq-dist")
		}
		if c.corpus, err = workload.LoadCorpus(f.corpus); err != nil {
			return usagef("--corpus: %v", err)
		}
	}
	if f.seqDist != "" {
		if c.modes, err = workload.ParseSeqDist(f.seqDist); err != nil {
			return usagef("--seq-dist: %v", err)
		}
	}
	if c.tls, err = f.tls.Config(); err != nil {
		return usagef("TLS: %v", err)
	}
	if err := resolveBatch(f); err != nil {
		return err
	}
	return resolveMedia(f, c)
}

// maxBatch bounds --batch-size: the largest batch servers take in one
// embeddings request is of this order (OpenAI's is 2,048 inputs).
const maxBatch = 2048

// resolveBatch checks --batch-size: inputs a request, for an API that
// takes several (embeddings; rerank's documents, after its query).
func resolveBatch(f *runFlags) error {
	switch {
	case f.batchSize < 1 || f.batchSize > maxBatch:
		return usagef("--batch-size %d: want 1 to %d inputs a request", f.batchSize, maxBatch)
	case f.batchSize > 1 && f.api != client.APIEmbeddings && f.api != client.APIRerank:
		return usagef("--batch-size sends several inputs a request: with --api embeddings or rerank")
	case f.batchSize > 1 && f.trace != "":
		return usagef("--batch-size with --trace: a replayed request sends the inputs its record counted")
	case (f.api == client.APIEmbeddings || f.api == client.APIRerank) && (f.turns > 0 || f.multiTurn):
		return usagef("--api %s generates no answers for a session to send back: not with --turns or --multi-turn", f.api)
	}
	return nil
}

// resolveSpecBench maps a Spec-Bench file's columns when
// --spec-bench-category asks for them: "all", or categories joined by
// commas.
func resolveSpecBench(f *runFlags) error {
	if f.specBench == "" {
		return nil
	}
	if f.prompts == "" {
		return usagef("--spec-bench-category picks rows of a Spec-Bench file: give it with --prompts question.jsonl")
	}
	if f.columns.Prompt != "" || f.columns.System != "" || f.columns.Output != "" || f.multiTurn {
		return usagef("--spec-bench-category reads Spec-Bench's own columns (turns, category): not with --prompt-column, --system-column, --output-column or --multi-turn")
	}
	var categories []string
	if f.specBench != "all" {
		for c := range strings.SplitSeq(f.specBench, ",") {
			if c = strings.TrimSpace(c); c == "" {
				return usagef("--spec-bench-category %q: want all, or categories joined by commas", f.specBench)
			}
			categories = append(categories, c)
		}
	}
	f.columns = workload.SpecBench(categories...)
	return nil
}

// resolveStartAt reads --start-at: a time long past is a stale setting
// (an example's, a Job run again), not a pod that started late, and is
// refused: shards would not overlap.
func resolveStartAt(f *runFlags, c *runConfig) error {
	var err error
	if c.startAt, err = parseStartAt(f.startAt); err != nil {
		return err
	}
	if ago := time.Since(c.startAt); !c.startAt.IsZero() && ago > startAtStale {
		return usagef("--start-at %s was %v ago: give a time to come, such as $(date -u -d '+2 min' +%%Y-%%m-%%dT%%H:%%M:%%SZ)",
			c.startAt.Format(time.RFC3339), ago.Round(time.Second))
	}
	return nil
}
