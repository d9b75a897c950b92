#!/usr/bin/env bash
# 100,000 requests at 1,000 concurrent streams (10 tokens each, 20 ms
# apart) against the scripted server on the other core, three runs: the
# client's peak memory (target: under 1 GB), CPU per event, and its timing
# error against the server's own send log. Prints a Markdown table and
# keeps it in bench/results/scale.md.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
go build -o "$out/scripted-server" ./bench/cmd/scripted-server
go build -o "$out/clientbench" ./bench/cmd/clientbench
results="$out/scale.jsonl"
: > "$results"
for run in 1 2 3; do
  $pin1 "$out/scripted-server" -addr 127.0.0.1:18741 -ttft 20ms -gap 20ms -log >/dev/null 2>&1 &
  server=$!
  trap 'kill $server 2>/dev/null || true' EXIT
  sleep 0.5
  $pin0 "$out/clientbench" -url http://127.0.0.1:18741 -mode paced -streams 1000 -requests 100000 -tokens 10 >> "$results"
  kill $server 2>/dev/null || true
  wait $server 2>/dev/null || true
done
python3 - "$results" > "$out/scale.md" <<'PY'
import json, sys
print("| run | requests (failed) | peak RSS MB | CPU/event (us) | ITL err p50/p99 (ms) | TTFT err p50/p99 (ms) |")
print("|---|---|---|---|---|---|")
for i, line in enumerate(open(sys.argv[1]), 1):
    r = json.loads(line)
    print(f'| {i} | {r["requests"]:,} ({r["failed"]}) | {r["max_rss_mb"]:.0f} | {r["cpu_per_event_us"]:.1f} | {r["itl_err_p50_ms"]:.3f} / {r["itl_err_p99_ms"]:.3f} | {r["ttft_err_p50_ms"]:.1f} / {r["ttft_err_p99_ms"]:.1f} |')
PY
cat "$out/scale.md"
cp "$out/scale.md" bench/results/scale.md
