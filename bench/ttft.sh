#!/usr/bin/env bash
# Where a new request's first token waits in tpsbench serve, from the
# scheduler's own counters (its /metrics): queued before joining the batch
# (behind the step running when it came, or for a free sequence), the
# steps that fed its prompt (and how many other tokens shared them), and
# the rest of its time in the batch (steps without its prompt). The same
# load as bench/llamaserver.sh: 2 threads, 8 sequences, /v1/completions,
# 64-token prompts, 128 tokens each with ignore_eos, 4 requests a stream
# after a warm-up one, at 1, 4, 8 and 16 streams, on 110m F32 and Q4_0
# (MODELS="shape FORMAT" lines to choose). Prints Markdown and keeps it in
# bench/results/ttft.md.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
go build -o "$out/tpsbench" ./cmd/tpsbench
port=18792
url="http://127.0.0.1:$port"
server=""
trap '[ -n "$server" ] && kill "$server" 2>/dev/null || true' EXIT
models=${MODELS:-"110m F32
110m Q4_0"}
results="$out/ttft.jsonl"
: > "$results"
while read -r shape format; do
  fmt=$(echo "$format" | tr A-Z a-z)
  model="$out/$shape-$fmt.gguf"
  [ -f "$model" ] || "$out/tpsbench" model synth --shape "$shape" --dtype "$fmt" -o "$model"
  "$out/tpsbench" serve --model "$model" --threads 2 --max-num-seqs 8 --addr "127.0.0.1:$port" > "$out/ttft-server.log" 2>&1 &
  server=$!
  for _ in $(seq 600); do curl -fsS "$url/health" >/dev/null 2>&1 && break; sleep 0.1; done
  for c in 1 4 8 16; do
    # the warm-up's requests are measured by the server too: scrape after it
    "$out/tpsbench" run --url "$url" --api completions --concurrency "$c" --requests "$c" --input-tokens 64 --seed "$((7 * c))" \
      --max-tokens 128 --ignore-eos --temperature 0 --quiet --format json > /dev/null
    before=$(curl -fsS "$url/metrics")
    run=$("$out/tpsbench" run --url "$url" --api completions --concurrency "$c" --requests "$((4 * c))" --input-tokens 64 --seed "$((100 + c))" \
      --max-tokens 128 --ignore-eos --temperature 0 --timeout 120s --format json --quiet)
    after=$(curl -fsS "$url/metrics")
    B="$before" A="$after" R="$run" M="$shape $format" C="$c" python3 -c '
import json, os
def sample(text):
    out = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            name, value = line.rsplit(" ", 1)
            out[name.split("{")[0]] = float(value)
    return out
b, a = sample(os.environ["B"]), sample(os.environ["A"])
d = lambda k: a.get(k, 0) - b.get(k, 0)
n = d("vllm:request_queue_time_seconds_count")
s = json.loads(os.environ["R"])["steps"][0]
print(json.dumps({"model": os.environ["M"], "concurrency": int(os.environ["C"]), "requests": n,
    "ttft_p50": s["ttft_ms"]["p50"], "ttft_p99": s["ttft_ms"]["p99"], "system_tps": s["system_tps"],
    "server_ttft": 1e3 * d("vllm:time_to_first_token_seconds_sum") / n,
    "queued": 1e3 * d("vllm:request_queue_time_seconds_sum") / n,
    "prefill_steps": 1e3 * d("tpsbench_request_prefill_steps_seconds_sum") / n,
    "in_batch": 1e3 * d("vllm:request_prefill_time_seconds_sum") / n,
    "shared": d("tpsbench_request_prefill_shared_tokens_total") / n}))' >> "$results"
  done
  kill "$server"; wait "$server" 2>/dev/null || true; server=""
done <<< "$models"

python3 - "$results" > "$out/ttft.md" <<'PY'
import json, sys
print("Where the first token waits in tpsbench serve (2 threads, 8 sequences; means over each step's 4 requests a stream, from the server's counters; TTFT p50 and p99 from the client):\n")
print("| model | streams | TTFT p50 / p99 ms | server TTFT mean ms | queued | prefill steps | rest in batch | other tokens in its prefill steps | system tok/s |")
print("|---|---|---|---|---|---|---|---|---|")
for line in open(sys.argv[1]):
    r = json.loads(line)
    print(f'| {r["model"]} | {r["concurrency"]} | {r["ttft_p50"]:.1f} / {r["ttft_p99"]:.1f} | {r["server_ttft"]:.1f} | {r["queued"]:.1f} | '
          f'{r["prefill_steps"]:.1f} | {r["in_batch"] - r["prefill_steps"]:.1f} | {r["shared"]:.0f} | {r["system_tps"]:,.0f} |')
PY
cat "$out/ttft.md"
cp "$out/ttft.md" bench/results/ttft.md
