#!/usr/bin/env bash
# Latency the measuring proxy adds to each chunk. The client benchmark
# measures each chunk's delay (kernel arrival at the client - the server's
# logged send), direct, through two bare TCP relays (bench/cmd/tcprelay: Go
# on its poller, and one OS thread a direction in blocking system calls, as
# a C relay's: the floor any user-space hop costs on this machine) and
# through tpsbench proxy. The proxy's cost is its delay less the direct one
# (target: under 0.1 ms at p99); less the Go relay's, it is what the proxy
# adds beyond forwarding bytes. Three loads: one stream of 500 chunks; 64
# streams started at once, whose chunks leave the server in the same
# instant and so queue in any hop; and requests arriving as a Poisson
# process (60 a second, about 60 streams in flight), as real traffic does.
# Server, client and hops share the cores.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
go build -o "$out/scripted-server" ./bench/cmd/scripted-server
go build -o "$out/clientbench" ./bench/cmd/clientbench
go build -o "$out/tcprelay" ./bench/cmd/tcprelay
go build -o "$out/tpsbench" ./cmd/tpsbench
server=127.0.0.1:18751
"$out/tcprelay" -listen 127.0.0.1:18753 -upstream $server &
relay=$!
"$out/tcprelay" -blocking -listen 127.0.0.1:18754 -upstream $server &
threads=$!
"$out/tpsbench" proxy --upstream http://$server --listen 127.0.0.1:18752 2>/dev/null &
proxy=$!
trap 'kill $relay $threads $proxy 2>/dev/null || true' EXIT
sleep 0.3
declare -A loads=(
  ["1 stream"]="-streams 1 -tokens 500"
  ["64 at once"]="-streams 64 -tokens 100"
  ["Poisson 60/s"]="-streams 128 -rate 60 -requests 300 -tokens 100"
)
results="$out/proxy.jsonl"
: > "$results"
for load in "1 stream" "64 at once" "Poisson 60/s"; do
  for rep in $(seq ${REPS:-3}); do
    for path in direct:18751 relay:18753 threads:18754 proxy:18752; do
      "$out/scripted-server" -addr $server -ttft 20ms -gap 10ms -log >/dev/null 2>&1 &
      s=$!
      sleep 0.3
      # shellcheck disable=SC2086
      run=$("$out/clientbench" -url "http://127.0.0.1:${path#*:}" -mode paced ${loads[$load]})
      echo "$run" | python3 -c 'import json,sys; r=json.load(sys.stdin); r["load"], r["path"] = sys.argv[1:]; print(json.dumps(r))' "$load" "${path%%:*}" >> "$results"
      kill $s; wait $s 2>/dev/null || true
    done
  done
done
python3 - "$results" > "$out/proxy.md" <<'PY'
import json, sys, statistics
runs, loads = {}, []
for l in open(sys.argv[1]):
    r = json.loads(l)
    runs.setdefault((r["load"], r["path"]), []).append(r)
    if r["load"] not in loads:
        loads.append(r["load"])
med = lambda rs, k: statistics.median(r[k] for r in rs)
names = {"direct": "direct", "relay": "Go relay", "threads": "thread relay", "proxy": "proxy"}
print("Chunk delay (server send -> client kernel arrival), medians over %d runs; ms\n" % len(next(iter(runs.values()))))
print("| load | path | delay p50 | delay p99 | added p50 | added p99 | over Go relay p50 | p99 |")
print("|---|---|---|---|---|---|---|---|")
for load in loads:
    at = lambda path, k: med(runs[(load, path)], k)
    for path in names:
        p50, p99 = at(path, "delay_p50_ms"), at(path, "delay_p99_ms")
        if path == "direct":
            print(f"| {load} | direct | {p50:.3f} | {p99:.3f} | - | - | - | - |")
            continue
        d50, d99 = at("direct", "delay_p50_ms"), at("direct", "delay_p99_ms")
        over = "- | -"
        if path == "proxy":
            over = f"{p50-at('relay','delay_p50_ms'):+.3f} | {p99-at('relay','delay_p99_ms'):+.3f}"
        print(f"| {load} | {names[path]} | {p50:.3f} | {p99:.3f} | {p50-d50:+.3f} | {p99-d99:+.3f} | {over} |")
PY
cat "$out/proxy.md"
cp "$out/proxy.md" bench/results/proxy.md
