#!/usr/bin/env bash
# Does batching pay off end to end? System TPS of the default model (15m
# F32, 2 threads) at 1, 8 and 32 sequences, in process (the engine's Step
# on that many sequences: go test -bench BatchedDecode) and over HTTP
# (tpsbench run --sweep 1,8,32 --max-tokens 128 against the embedded
# engine in its own process), each as a ratio to its batch 1, and HTTP
# over in-process at each batch. Per-request TPS over HTTP and the
# in-process step time are shown side by side: the first should fall no
# faster than the second grows. Medians of REPS runs (default 3); prints
# Markdown and keeps it in bench/results/batching.md.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
reps=${REPS:-3}
go build -o "$out/tpsbench" ./cmd/tpsbench
results="$out/batching.jsonl"
: > "$results"
for r in $(seq "$reps"); do
  go test -run '^$' -bench 'BatchedDecode/15m/F32/batch(1|8|32)$' -benchtime 100x ./engine/llama/ |
    awk '/tok\/s/ { split($1, a, "batch"); sub(/-[0-9]+$/, "", a[2]); printf "{\"where\":\"process\",\"batch\":%s,\"system_tps\":%s,\"step_ms\":%s}\n", a[2], $(NF-1), $3/1e6 }' >> "$results"
  "$out/tpsbench" run --sweep 1,8,32 --max-tokens 128 --format json --quiet 2>/dev/null |
    python3 -c '
import json, sys
for s in json.load(sys.stdin)["steps"]:
    print(json.dumps({"where": "http", "batch": s["concurrency"], "system_tps": s["system_tps"], "per_request_tps": s["per_request_tps"]}))' >> "$results"
done
python3 - "$results" > "$out/batching.md" <<'PY'
import json, sys, statistics
rows = {}
for line in open(sys.argv[1]):
    r = json.loads(line)
    rows.setdefault((r["where"], r["batch"]), []).append(r)
med = lambda where, b, k: statistics.median(x[k] for x in rows[(where, b)])
print("| batch | in-process system tok/s | ratio to batch 1 | step ms | HTTP system tok/s | ratio to batch 1 | HTTP / in-process | HTTP per-request tok/s |")
print("|---|---|---|---|---|---|---|---|")
for b in (1, 8, 32):
    p, h = med("process", b, "system_tps"), med("http", b, "system_tps")
    print(f'| {b} | {p:.0f} | {p / med("process", 1, "system_tps"):.2f}x | {med("process", b, "step_ms"):.2f} | {h:.0f} | {h / med("http", 1, "system_tps"):.2f}x | {h / p:.0%} | {med("http", b, "per_request_tps"):.0f} |')
PY
cat "$out/batching.md"
if [ -z "${REPS:-}" ]; then
  cp "$out/batching.md" bench/results/batching.md
fi
