#!/usr/bin/env bash
# Client speed and timing accuracy (issue: the client must not be the
# bottleneck). The scripted server runs pinned to CPU 1, the client to CPU 0.
#   flooded: events arrive in bulk; figure: token events per client CPU-second
#   paced:   20 ms between tokens at 1, 64, 256, 1024 streams; figures: client
#            CPU per event, |client ITL - server ITL| and |client TTFT -
#            server TTFT| at p50 and p99, share of client ITLs under 50 us
# Each case runs for tpsbench's client and for a plain Go client (net/http,
# bufio.Scanner, encoding/json per event). Prints a Markdown table and
# keeps it in bench/results/client.md.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
go build -o "$out/scripted-server" ./bench/cmd/scripted-server
go build -o "$out/clientbench" ./bench/cmd/clientbench
port=18731
url=http://127.0.0.1:$port

trap stop_scripted EXIT

results="$out/client.jsonl"
: > "$results"
for impl in tpsbench plain; do
  for rep in 1 2; do
    serve_scripted -ttft 0 -gap 0 -role=false
    $pin0 "$out/clientbench" -url "$url" -impl $impl -mode flood -streams 8 -tokens 50000 >> "$results"
    stop_scripted
  done
done
for n in 1 64 256 1024; do
  for rep in 1 2 3; do for impl in tpsbench plain; do
    serve_scripted -ttft 50ms -gap 20ms -log
    $pin0 "$out/clientbench" -url "$url" -impl $impl -mode paced -streams $n -tokens 100 >> "$results"
    stop_scripted
  done; done
done

python3 - "$results" > "$out/client.md" <<'PY'
import json, sys, statistics
runs = {}
for l in open(sys.argv[1]):
    r = json.loads(l)
    runs.setdefault((r["mode"] != "flood", r["streams"], r["impl"] != "tpsbench"), []).append(r)
rows = []
for key in sorted(runs):  # the median of every figure over the repetitions
    rs = runs[key]
    m = dict(rs[0])
    for k, v in rs[0].items():
        if isinstance(v, (int, float)):
            m[k] = statistics.median(x[k] for x in rs)
    m["reps"] = len(rs)
    rows.append(m)
print("Medians over repetitions (flooded: 2, paced: 3), client on CPU 0, server on CPU 1.\n")
print("| client | load | events/CPU-s | CPU/event (us) | ITL err p50/p99 (ms) | TTFT err p50/p99 (ms) | ITLs < 50 us |")
print("|---|---|---|---|---|---|---|")
for r in rows:
    load = "flooded, 8 streams" if r["mode"] == "flood" else f'paced 20 ms, {r["streams"]} stream' + ("s" if r["streams"] != 1 else "")
    err = lambda a, b: f'{r.get(a, 0):.3f} / {r.get(b, 0):.3f}' if r["mode"] == "paced" else "-"
    print(f'| {r["impl"]} | {load} | {r["events_per_cpu_s"]:,.0f} | {r["cpu_per_event_us"]:.1f} | {err("itl_err_p50_ms","itl_err_p99_ms")} | {err("ttft_err_p50_ms","ttft_err_p99_ms")} | {100*r["share_itl_under_50us"]:.1f}% |')
PY
cat "$out/client.md"
cp "$out/client.md" bench/results/client.md
