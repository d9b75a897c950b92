#!/usr/bin/env bash
# The client at thousands of concurrent streams, pinned to one core (CPU 0)
# against the scripted server on the other: at 256, 1,024, 2,048 and 4,096
# streams, each stream two requests of 50 tokens 40 ms apart (all of a
# level due at once, then each stream's second as its first ends). Per
# level: the client's ITL p99 beside the server's (its own send log), the
# p99 of |client ITL - server ITL|, the share of batched reads (client
# ITLs more than 1 ms below the server's gap between the same two
# events), send lag (a
# request's send after it was due) at p50 and p99, CPU per token event,
# and peak RSS per stream; then peak RSS per stream alone at 16,384
# streams of 10 tokens. Beside each level's send lag, its floor: the
# kernel's writes alone of as many requests, one after another on the
# client's core (clientbench -mode sendfloor). Prints a Markdown table and
# keeps it in bench/results/streams.md.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
go build -o "$out/scripted-server" ./bench/cmd/scripted-server
go build -o "$out/clientbench" ./bench/cmd/clientbench
port=18761
url=http://127.0.0.1:$port
ulimit -n 40000 2>/dev/null || ulimit -n "$(ulimit -Hn)"

trap stop_scripted EXIT

results="$out/streams.jsonl"
: > "$results"
for n in 256 1024 2048 4096; do
  serve_scripted -ttft 50ms -gap 40ms
  r=$($pin0 "$out/clientbench" -url "$url" -mode sendfloor -streams $n -tokens 50)
  echo "$r" >> "$results"
  stop_scripted
  serve_scripted -ttft 50ms -gap 40ms -log
  r=$($pin0 "$out/clientbench" -url "$url" -mode paced -streams $n -requests $((2 * n)) -tokens 50)
  echo "$r" >> "$results"
  stop_scripted
done
serve_scripted -ttft 50ms -gap 40ms
r=$($pin0 "$out/clientbench" -url "$url" -mode memory -streams 16384 -tokens 10)
echo "$r" >> "$results"
stop_scripted

python3 - "$results" > "$out/streams.md" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
floor = {r["streams"]: r for r in rows if r["mode"] == "sendfloor"}
print("Client on CPU 0, scripted server on CPU 1; one run a level (bench/streams.sh). "
      "Send floor: the kernel's writes alone of as many requests from one core, at p99.\n")
print("| streams | requests (failed) | client / server ITL p99 (ms) | ITL err p99 (ms) | batched reads | send lag p50 / p99 (ms) | send floor (ms) | CPU/event (us) | RSS/stream (KB) |")
print("|---|---|---|---|---|---|---|---|---|")
for r in rows:
    if r["mode"] == "sendfloor":
        continue
    if r["mode"] == "memory":
        print(f'| {r["streams"]:,} | {r["requests"]:,} ({r["failed"]}) | - | - | - | {r["send_lag_p50_ms"]:.1f} / {r["send_lag_p99_ms"]:.1f} | - | - | {r["kb_per_stream"]:.0f} |')
        continue
    f = floor.get(r["streams"])
    fl = f'{f["send_lag_p99_ms"]:.1f}' if f else "-"
    print(f'| {r["streams"]:,} | {r["requests"]:,} ({r["failed"]}) | {r["client_itl_p99_ms"]:.2f} / {r["server_itl_p99_ms"]:.2f} | {r["itl_err_p99_ms"]:.3f} | '
          f'{100*r["batched_share"]:.3f}% | {r["send_lag_p50_ms"]:.1f} / {r["send_lag_p99_ms"]:.1f} | {fl} | {r["cpu_per_event_us"]:.1f} | {r["kb_per_stream"]:.0f} |')
PY
cat "$out/streams.md"
cp "$out/streams.md" bench/results/streams.md
