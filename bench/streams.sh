#!/usr/bin/env bash
# The client at thousands of concurrent streams, pinned to one core (CPU 0)
# against the scripted server on the other: at 256, 1,024, 2,048 and 4,096
# streams, each stream two requests of 50 tokens 40 ms apart (all of a
# level due at once, then each stream's second as its first ends). Per
# level: the client's ITL p99 beside the server's (its own send log), the
# p99 of |client ITL - server ITL|, the share of batched reads (client
# ITLs more than 1 ms below the server's gap between the same two
# events), send lag (a request's send after it was due) at p50 and p99,
# CPU per token event, and peak RSS per stream; then peak RSS per stream
# alone at 16,384 streams of 10 tokens. Beside each level's send lag, its
# floor: the kernel's writes alone of as many requests, one after another
# on the client's core (clientbench -mode sendfloor). Then 2,048 and
# 4,096 again with the client split over two processes (-shard, as
# tpsbench run --shard), one on each core, the server still on CPU 1:
# what sharding gives on this machine.
#
# Each measurement runs $reps times (default 3), a fresh server each time;
# a row is the run whose send lag p99 is the median, whole, and the floor
# the median of its runs. Prints a Markdown table and keeps it in
# bench/results/streams.md.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
go build -o "$out/scripted-server" ./bench/cmd/scripted-server
go build -o "$out/clientbench" ./bench/cmd/clientbench
port=18761
url=http://127.0.0.1:$port
reps=${reps:-3}
ulimit -n 40000 2>/dev/null || ulimit -n "$(ulimit -Hn)"

trap stop_scripted EXIT

results="$out/streams.jsonl"
: > "$results"
for n in 256 1024 2048 4096; do
  for _ in $(seq "$reps"); do
    serve_scripted -ttft 50ms -gap 40ms
    r=$($pin0 "$out/clientbench" -url "$url" -mode sendfloor -streams $n -tokens 50)
    echo "$r" >> "$results"
    stop_scripted
    serve_scripted -ttft 50ms -gap 40ms -log
    r=$($pin0 "$out/clientbench" -url "$url" -mode paced -streams $n -requests $((2 * n)) -tokens 50)
    echo "$r" >> "$results"
    stop_scripted
  done
done
if [ -n "$pin0" ]; then
  for n in 2048 4096; do
    for _ in $(seq "$reps"); do
      serve_scripted -ttft 50ms -gap 40ms -log
      at=$(( $(date +%s%3N) + 2000 )) # both shards' processes started
      shards=()
      for i in 0 1; do
        taskset -c $i "$out/clientbench" -url "$url" -mode paced -streams $n -requests $((2 * n)) -tokens 50 \
          -shard $i/2 -start-at $at -dump "$out/streams-shard$i.json" &
        shards+=($!)
      done
      wait "${shards[@]}"
      r=$($pin0 "$out/clientbench" -url "$url" -mode paced -merge "$out/streams-shard0.json,$out/streams-shard1.json")
      echo "$r" >> "$results"
      stop_scripted
    done
  done
fi
serve_scripted -ttft 50ms -gap 40ms
r=$($pin0 "$out/clientbench" -url "$url" -mode memory -streams 16384 -tokens 10)
echo "$r" >> "$results"
stop_scripted

python3 - "$results" "$reps" > "$out/streams.md" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
reps = int(sys.argv[2])
def median_run(runs):
    return sorted(runs, key=lambda r: r["send_lag_p99_ms"])[(len(runs) - 1) // 2]
groups = {}
for r in rows:
    groups.setdefault((r["mode"], r["streams"], r.get("shards", 0)), []).append(r)
print(f"Client on CPU 0, scripted server on CPU 1; each row the median of {reps} runs by send lag p99, the runs' range beside it (bench/streams.sh). "
      "Send floor: the kernel's writes alone of as many requests from one core, at p99 (median). "
      "Shards: the client as two processes (-shard), one on each core, the server still on CPU 1; "
      "figures over both shards' streams, CPU and RSS summed.\n")
print("| streams | requests (failed) | client / server ITL p99 (ms) | ITL err p99 (ms) | batched reads | send lag p50 / p99 (ms) | send floor (ms) | CPU/event (us) | RSS/stream (KB) |")
print("|---|---|---|---|---|---|---|---|---|")
for (mode, streams, shards), runs in groups.items():
    if mode == "sendfloor":
        continue
    r = median_run(runs)
    if mode == "memory":
        print(f'| {streams:,} | {r["requests"]:,} ({r["failed"]}) | - | - | - | {r["send_lag_p50_ms"]:.1f} / {r["send_lag_p99_ms"]:.1f} | - | - | {r["kb_per_stream"]:.0f} |')
        continue
    floor = groups.get(("sendfloor", streams, 0)) if not shards else None
    fl = f'{median_run(floor)["send_lag_p99_ms"]:.1f}' if floor else "-"
    level = f'{streams:,}' + (f' ({shards} shards)' if shards else "")
    lags = sorted(x["send_lag_p99_ms"] for x in runs)
    spread = f' ({lags[0]:.1f}-{lags[-1]:.1f})' if len(lags) > 1 else ""
    print(f'| {level} | {r["requests"]:,} ({r["failed"]}) | {r["client_itl_p99_ms"]:.2f} / {r["server_itl_p99_ms"]:.2f} | {r["itl_err_p99_ms"]:.3f} | '
          f'{100*r["batched_share"]:.3f}% | {r["send_lag_p50_ms"]:.1f} / {r["send_lag_p99_ms"]:.1f}{spread} | {fl} | {r["cpu_per_event_us"]:.1f} | {r["kb_per_stream"]:.0f} |')
PY
cat "$out/streams.md"
cp "$out/streams.md" bench/results/streams.md
