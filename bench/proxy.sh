#!/usr/bin/env bash
# Latency the measuring proxy adds to each chunk. The client benchmark
# measures each chunk's delay (kernel arrival at the client - the server's
# logged send) at 1 and 64 paced streams: direct, through a bare TCP relay
# (bench/cmd/tcprelay: the floor any user-space hop costs on this machine)
# and through tpsbench proxy. The proxy's cost is its delay less the direct
# one (target: under 0.1 ms at p99); less the relay's, it is what the proxy
# adds beyond forwarding bytes. Server, client and hops share the cores.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
go build -o "$out/scripted-server" ./bench/cmd/scripted-server
go build -o "$out/clientbench" ./bench/cmd/clientbench
go build -o "$out/tcprelay" ./bench/cmd/tcprelay
go build -o "$out/tpsbench" ./cmd/tpsbench
server=127.0.0.1:18751
"$out/tcprelay" -listen 127.0.0.1:18753 -upstream $server &
relay=$!
"$out/tpsbench" proxy --upstream http://$server --listen 127.0.0.1:18752 2>/dev/null &
proxy=$!
trap 'kill $relay $proxy 2>/dev/null || true' EXIT
sleep 0.3
results="$out/proxy.jsonl"
: > "$results"
for streams in ${STREAMS:-1 64}; do
  for rep in $(seq ${REPS:-3}); do
    for path in direct:18751 relay:18753 proxy:18752; do
      "$out/scripted-server" -addr $server -ttft 20ms -gap 10ms -log >/dev/null 2>&1 &
      s=$!
      sleep 0.3
      "$out/clientbench" -url "http://127.0.0.1:${path#*:}" -mode paced -streams "$streams" -tokens 100 |
        python3 -c 'import json,sys; r=json.load(sys.stdin); r["path"]=sys.argv[1]; print(json.dumps(r))' "${path%%:*}" >> "$results"
      kill $s; wait $s 2>/dev/null || true
    done
  done
done
python3 - "$results" <<'PY'
import json, sys, statistics
runs = {}
for l in open(sys.argv[1]):
    r = json.loads(l)
    runs.setdefault((r["streams"], r["path"]), []).append(r)
med = lambda rs, k: statistics.median(r[k] for r in rs)
print("Chunk delay (server send -> client arrival), medians over %d runs; ms\n" % len(next(iter(runs.values()))))
print("| streams | path | delay p50 | delay p99 | added p50 | added p99 |")
print("|---|---|---|---|---|---|")
for streams in sorted({k[0] for k in runs}):
    d50, d99 = med(runs[(streams, "direct")], "delay_p50_ms"), med(runs[(streams, "direct")], "delay_p99_ms")
    for path in ("direct", "relay", "proxy"):
        rs = runs[(streams, path)]
        p50, p99 = med(rs, "delay_p50_ms"), med(rs, "delay_p99_ms")
        print(f"| {streams} | {path} | {p50:.3f} | {p99:.3f} | {p50-d50:+.3f} | {p99-d99:+.3f} |")
PY
