#!/usr/bin/env bash
# 100,000 requests at 1,000 concurrent streams (10 tokens each, 20 ms
# apart) against the scripted server on the other core: the client's peak
# memory (target: under 1 GB) and its timing error against the server's
# own send log.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
go build -o "$out/scripted-server" ./bench/cmd/scripted-server
go build -o "$out/clientbench" ./bench/cmd/clientbench
$pin1 "$out/scripted-server" -addr 127.0.0.1:18741 -ttft 20ms -gap 20ms -log >/dev/null 2>&1 &
server=$!
trap 'kill $server 2>/dev/null || true' EXIT
sleep 0.5
$pin0 "$out/clientbench" -url http://127.0.0.1:18741 -mode paced -streams 1000 -requests 100000 -tokens 10
