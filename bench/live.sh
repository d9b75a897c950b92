#!/usr/bin/env bash
# What live counting costs the client: token events per client CPU-second
# in the flooded case (8 streams, the server outpacing the client), with
# every chunk counted by a progress counter and the Prometheus exporter
# (-live), and without. Server pinned to one core, client to the other;
# the two alternate, 5 runs each; medians and the drop.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
go build -o "$out/scripted-server" ./bench/cmd/scripted-server
go build -o "$out/clientbench" ./bench/cmd/clientbench
port=18733
url=http://127.0.0.1:$port
$pin1 "$out/scripted-server" -addr 127.0.0.1:$port -ttft 0 -gap 0 -role=false >/dev/null 2>&1 &
server=$!
trap 'kill $server 2>/dev/null || true' EXIT
for _ in $(seq 50); do curl -fsS "$url/v1/models" >/dev/null 2>&1 && break; sleep 0.1; done
results="$out/live.jsonl"
: > "$results"
for rep in 1 2 3 4 5; do
  for live in false true; do
    $pin0 "$out/clientbench" -url "$url" -impl tpsbench -mode flood -streams 8 -tokens 50000 -live=$live |
      sed "s/^{/{\"live\":$live,/" >> "$results"
  done
done
python3 - "$results" <<'PY'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
med = {live: statistics.median(r["events_per_cpu_s"] for r in rows if r["live"] == live) for live in (False, True)}
print("live counting | events per client CPU-second (median of 5)")
print("off | %s" % format(round(med[False]), ","))
print("on  | %s" % format(round(med[True]), ","))
print("drop: %.1f%%" % (100 * (1 - med[True] / med[False])))
PY
