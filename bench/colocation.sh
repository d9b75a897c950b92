#!/usr/bin/env bash
# Token delivery from the embedded engine as `tpsbench run` starts it,
# against the same engine started by hand as `tpsbench serve` and
# measured with --url (what a real deployment looks like). run used to
# host the engine in the measuring process, where its threads kept the Go
# scheduler from polling the network but every 10 ms: 74-79% of chunks
# came batched, arrival gaps p99 16 ms, against 5-11% and 4 ms. The two
# rows should agree. For each: system TPS, the share of chunks that
# arrived in the same read as the one before (batched), and the gaps
# between arrivals (reads that brought tokens) at p50 and p99, from the
# records. 15m F32, 2 engine threads, 8 requests of 64 tokens one at a
# time, after 2 warm-up requests. Then 8 streams at once (32 requests
# after 8 warm-up ones), where the client competes with the engine's
# threads for the cores, on 2 engine threads and on 1. Prints Markdown
# and keeps it in bench/results/colocation.md.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
go build -o "$out/tpsbench" ./cmd/tpsbench
port=18734
args=(--requests 8 --max-tokens 64 --warmup 2 --format json -q)
"$out/tpsbench" run --engine-threads 2 "${args[@]}" --force --records "$out/colocated.jsonl" > "$out/colocated.json"
wide=(--concurrency 8 --requests 32 --max-tokens 64 --warmup 8 --format json -q)
for t in 2 1; do
  "$out/tpsbench" run --engine-threads $t "${wide[@]}" --force --records "$out/streams8-t$t.jsonl" > "$out/streams8-t$t.json"
done
"$out/tpsbench" serve --threads 2 --addr 127.0.0.1:$port >/dev/null 2>&1 &
server=$!
trap 'kill $server 2>/dev/null || true' EXIT
for _ in $(seq 100); do curl -fsS "http://127.0.0.1:$port/v1/models" >/dev/null 2>&1 && break; sleep 0.1; done
"$out/tpsbench" run --url "http://127.0.0.1:$port" --ignore-eos "${args[@]}" --force --records "$out/separate.jsonl" > "$out/separate.json"
python3 - "$out" > "$out/colocation.md" <<'PY'
import json, sys
out = sys.argv[1]
def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p * len(xs)))]
print("| engine | system TPS | chunks batched | arrival gap p50 ms | arrival gap p99 ms |")
print("|---|---|---|---|---|")
for name, label in (("colocated", "started by tpsbench run"), ("separate", "tpsbench serve, run --url"),
                    ("streams8-t2", "started by tpsbench run, 8 streams"), ("streams8-t1", "the same, --engine-threads 1")):
    step = json.load(open(f"{out}/{name}.json"))["steps"][0]
    gaps = []
    for line in open(f"{out}/{name}.jsonl"):
        r = json.loads(line)
        if "header" in r or r.get("warmup"):  # a run's header line, or warm-up
            continue
        arrivals = sorted({c[0] for c in r.get("chunks") or []})
        gaps += [(b - a) / 1e6 for a, b in zip(arrivals, arrivals[1:])]
    print(f'| {label} | {step["system_tps"]:.0f} | {100 * step["batched_chunks"] / step["chunks"]:.0f}% | {pct(gaps, 0.5):.2f} | {pct(gaps, 0.99):.2f} |')
PY
cat "$out/colocation.md"
cp "$out/colocation.md" bench/results/colocation.md
