#!/usr/bin/env bash
# tpsbench report on a 1,000,000-record file (32 tokens a request, ~890 MB):
# wall time and peak memory (targets: under 20 s and 300 MB). Prints a
# Markdown table and keeps it in bench/results/report.md.
set -euo pipefail
cd "$(dirname "$0")/.."
out=bench/out
mkdir -p "$out"
go build -o "$out/tpsbench" ./cmd/tpsbench
go build -o "$out/genrecords" ./bench/cmd/genrecords
[ -f "$out/1m.jsonl" ] || "$out/genrecords" -n 1000000 -o "$out/1m.jsonl"
{
  echo "| tpsbench report, 1,000,000 records | time | peak RSS |"
  echo "|---|---|---|"
  for format in json html; do
    /usr/bin/time -f "%e %M" "$out/tpsbench" report "$out/1m.jsonl" --format "$format" --force --out "$out/1m.$format" 2>&1 | tail -1 |
      awk -v f="$format" '{printf "| --format %s | %.2f s | %.0f MB |\n", f, $1, $2/1000}'
  done
} > "$out/report.md"
cat "$out/report.md"
cp "$out/report.md" bench/results/report.md
