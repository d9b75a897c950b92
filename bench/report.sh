#!/usr/bin/env bash
# tpsbench report on a 1,000,000-record file (32 tokens a request, ~890 MB):
# wall time and peak memory (targets: under 20 s and 300 MB).
set -euo pipefail
cd "$(dirname "$0")/.."
out=bench/out
mkdir -p "$out"
go build -o "$out/tpsbench" ./cmd/tpsbench
go build -o "$out/genrecords" ./bench/cmd/genrecords
[ -f "$out/1m.jsonl" ] || "$out/genrecords" -n 1000000 -o "$out/1m.jsonl"
for format in json html; do
  /usr/bin/time -f "%e s, %M KB peak" "$out/tpsbench" report "$out/1m.jsonl" --format "$format" --out "$out/1m.$format" 2>&1 |
    sed "s/^/report --format $format: /"
done
