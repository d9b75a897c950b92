#!/usr/bin/env bash
# Latency the measuring proxy adds to each chunk: the client benchmark's
# arrival delay (client arrival - server send) at 64 paced streams, direct
# and through tpsbench proxy; the difference at p50 and p99 is the proxy's
# cost (target: under 0.1 ms at p99).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
go build -o "$out/scripted-server" ./bench/cmd/scripted-server
go build -o "$out/clientbench" ./bench/cmd/clientbench
go build -o "$out/tpsbench" ./cmd/tpsbench
run() { # $1: URL the client talks to
  "$out/scripted-server" -addr 127.0.0.1:18751 -ttft 20ms -gap 10ms -log >/dev/null 2>&1 &
  local s=$!
  sleep 0.4
  "$out/clientbench" -url "$1" -mode paced -streams ${STREAMS:-64} -tokens 100
  kill $s; wait $s 2>/dev/null || true
}
"$out/tpsbench" proxy --upstream http://127.0.0.1:18751 --listen 127.0.0.1:18752 2>/dev/null &
proxy=$!
trap 'kill $proxy 2>/dev/null || true' EXIT
sleep 0.3
echo "direct:      $(run http://127.0.0.1:18751)"
echo "via proxy:   $(run http://127.0.0.1:18752)"
