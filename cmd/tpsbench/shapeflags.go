package main

import (
	"github.com/spf13/pflag"

	"github.com/tpsbench/tpsbench/client"
)

// defineShapeFlags defines the flags that shape a run's load beyond its
// concurrency and rate: sessions and think times, ramps, cancellations,
// model mixes and replicas, datasets and length mixtures, repeats.
func (f *runFlags) defineShapeFlags(fl *pflag.FlagSet) {
	f.defineMediaFlags(fl)
	fl.IntVar(&f.batchSize, "batch-size", 1, "with --api embeddings: inputs a request, each a prompt of the workload in turn (AIPerf's --batch-size, vLLM's --random-batch-size); with --api rerank, documents after the query, prompts of the workload too")
	fl.DurationVar(&f.rampUp, "ramp-up-duration", 0, "raise the load over a step's first part: --rate from 0 (GuideLLM's rampup), or --concurrency users from 1 (AIPerf's --concurrency-ramp-duration); requests started in it are counted apart, out of the step's figures")
	fl.DurationVar(&f.coolDown, "cool-down-duration", 0, "with --duration: requests started in a step's last part are counted apart, out of its figures (GuideLLM's cooldown)")
	fl.IntVar(&f.repeat, "repeat", 1, "run the whole plan this many times: every step's runs are reported, and each figure's mean with its 95% confidence interval across them (AIPerf's --num-profile-runs)")
	fl.StringArrayVar(&f.replicas, "replica", nil, "another server of --url's model and API (repeat it): each request goes to one of them, by --balance; the report gives each server's figures apart and together")
	fl.StringVar(&f.balance, "balance", client.BalanceRoundRobin, "with --replica: round-robin, or least-in-flight (the server with the fewest requests going)")
	fl.StringVar(&f.loraModules, "lora-modules", "", "send each request to one of these models instead of --model: LoRA adapters (or models served side by side), NAME or NAME:WEIGHT, e.g. sql-lora,chat-lora:3 (vLLM's flag); the report gives each model's figures apart and together")
	fl.StringVar(&f.loraAssign, "lora-assignment", "random", "with --lora-modules: random (by weight, drawn from --seed) or round-robin")
	fl.StringVar(&f.corpus, "corpus", "", "a text file synthetic prompts are made of (its lines drawn at random, the last cut to the length), in place of common words, as vLLM's sonnet dataset is; with --input-tokens or --seq-dist")
	fl.StringVar(&f.seqDist, "seq-dist", "", "synthetic prompts from a mixture of lengths, as AIPerf's --seq-dist: INPUT,OUTPUT:WEIGHT modes joined by ';', each length MEAN or MEAN|STDDEV, e.g. '256|32,128:60;1024,256:40' (in place of --input-tokens and --output-tokens)")
	fl.StringVar(&f.columns.Prompt, "prompt-column", "", "--prompts is a dataset (JSON lines, a JSON array of objects, or a .csv with a header) whose prompts are in this column: text, or a messages array (GuideLLM's --data-column-mapper); rows without one are dropped and counted")
	fl.StringVar(&f.specBench, "spec-bench-category", "", "--prompts is Spec-Bench's question.jsonl: send each row's first turn, from these categories (joined by commas, e.g. coding,math_reasoning) or all (vLLM's spec_bench dataset); the rows of other categories are counted as dropped")
	fl.StringVar(&f.columns.System, "system-column", "", "with --prompt-column: the column of a system message to send first")
	fl.StringVar(&f.columns.Image, "image-column", "", "with --prompt-column: the column of images sent with each row's prompt: a path (beside the dataset), a list of them, a data or http URL, or Hugging Face's Image feature ({bytes, path}, Parquet's binary too); rows whose image cannot be read are dropped and counted")
	fl.StringVar(&f.columns.Audio, "audio-column", "", "with --prompt-column: the column of audio sent with each row's prompt (or transcribed, with --api transcription), as --image-column reads images")
	fl.StringVar(&f.columns.Video, "video-column", "", "with --prompt-column: the column of videos sent with each row's prompt, as --image-column reads images")
	fl.StringVar(&f.columns.Output, "output-column", "", "with --prompt-column: the column of each row's expected output length, a count of tokens or a reference answer (4 characters a token), sent as max_tokens")
	fl.IntVar(&f.turns, "turns", 0, "synthetic sessions of this many turns: each turn is sent with the turns before it and the server's answers to them, a think time after the last answer; --requests counts turns, --concurrency is the sessions at once (users), --rate sessions started a second")
	fl.DurationVar(&f.thinkTime, "think-time", 0, "the mean time from a turn's answer to the session's next (--turns); without --turns, each --concurrency user waits it between an answer and its next request (AIPerf's user-centric load)")
	fl.DurationVar(&f.thinkStddev, "think-time-stddev", 0, "the standard deviation of think times (normal, cut at 0; drawn from --seed)")
	fl.StringVar(&f.rampStrategy, "ramp-up-strategy", "", "linear or exponential: the request rate goes from --ramp-up-start-rps for the first request to --ramp-up-end-rps for the last, by request index, open loop (vLLM's flags); needs --requests, and --concurrency caps it. With --ramp-up-duration instead, how --concurrency users rise over it: one more at even steps, or doubling at even steps")
	fl.StringVar(&f.rateShape, "rate-shape", "", rateShapeHelp())
	fl.Float64Var(&f.rampStart, "ramp-up-start-rps", 0, "with --ramp-up-strategy: the first request's rate (requests/s)")
	fl.Float64Var(&f.rampEnd, "ramp-up-end-rps", 0, "with --ramp-up-strategy: the last request's rate (requests/s)")
	fl.Float64Var(&f.cancelRate, "request-cancellation-rate", 0, "percent of measured requests to cancel --request-cancellation-delay after their send, as users who leave mid-answer (AIPerf's flag; drawn from --seed): counted apart, out of every figure")
	fl.DurationVar(&f.cancelDelay, "request-cancellation-delay", 0, "with --request-cancellation-rate: how long after its send a request is cancelled")
}

// usersRamp says --ramp-up-strategy shapes the rise of users over
// --ramp-up-duration, not a rate by request.
func (f *runFlags) usersRamp() bool { return f.rampStrategy != "" && f.rampUp > 0 }
