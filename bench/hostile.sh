#!/usr/bin/env bash
# Peak memory (RSS) of tpsbench on crafted inputs that once made it grow
# without bound: records far apart in time (report and watch kept a 100 ms
# bin for the whole span), a GGUF file of one 64 MB metadata array, a 1 GB
# records file of one line, run given a budget of 2^30 tokens, a trace
# line of a 2^30-token prompt and a stream of 5 million events, and serve
# under four 4 MiB prompts at once.
# Prints a Markdown table and keeps it in bench/results/hostile.md.
source "$(dirname "$0")/lib.sh"
set -euo pipefail
go build -o "$out/tpsbench" ./cmd/tpsbench
go run ./bench/cmd/hostilefiles -dir "$out"
peak() { # command... -> "seconds s, MB peak" (exit status ignored: some inputs are refused)
  /usr/bin/time -f "%e %M" "$@" 2>&1 >/dev/null | tail -1 | awk '{printf "%.2f s, %.1f MB", $1, $2/1000}'
}
# the table goes to stdout and, once whole, to bench/results/hostile.md,
# which scripts/readme-tables copies into the README
exec > >(tee "$out/hostile.md")
tee_pid=$!
echo "| input | command | time, peak RSS |"
echo "|---|---|---|"
for d in 7 30 365; do
  echo "| two records ${d} days apart | report | $(peak "$out/tpsbench" report "$out/apart-${d}d.jsonl") |"
  echo "| two records ${d} days apart | watch --once | $(peak "$out/tpsbench" watch --once "$out/apart-${d}d.jsonl") |"
done
echo "| GGUF of one 64 MB uint8 array | model info | $(peak "$out/tpsbench" model info "$out/array-64mb.gguf"), the mapped file included |"
echo "| 1 GB records file of one line | report | $(peak "$out/tpsbench" report "$out/line-1gb.jsonl"), refused |"
echo "| /dev/zero | watch --once | $(peak "$out/tpsbench" watch --once /dev/zero), refused |"

# run against scripted servers: a budget of 2^30 tokens answered with 5,
# a trace claiming a prompt of 2^30 tokens, a stream of 5 million events
go build -o "$out/scripted-server" ./bench/cmd/scripted-server
sport=$((20000 + RANDOM % 20000))
"$out/scripted-server" -addr "127.0.0.1:$sport" -ttft 0 -gap 0 -tokens 5 -role=false 2>/dev/null &
short=$!
lport=$((sport + 1))
"$out/scripted-server" -addr "127.0.0.1:$lport" -ttft 0 -gap 0 -tokens 5000000 -role=false 2>/dev/null &
long=$!
trap 'kill $short $long 2>/dev/null || true' EXIT
for p in $sport $lport; do
  for _ in $(seq 100); do curl -sf -o /dev/null "http://127.0.0.1:$p/v1/models" && break; sleep 0.1; done
done
run=("$out/tpsbench" run --api chat --model m -q --format json --out /dev/null --force)
echo "| --max-tokens 1073741824, answers of 5 tokens | run | $(peak "${run[@]}" --url "http://127.0.0.1:$sport" --requests 4 --concurrency 2 --max-tokens 1073741824) |"
echo "| a trace line of input_length 2^30 | run --trace | $(peak "${run[@]}" --url "http://127.0.0.1:$sport" --trace "$out/trace-2e30.jsonl"), replayed at 2^20 |"
rm -f "$out/stream-5m.jsonl"
echo "| a stream of 5 million events | run --records | $(peak "${run[@]}" --url "http://127.0.0.1:$lport" --requests 1 --max-tokens 5000000 --timeout 10m --records "$out/stream-5m.jsonl"), a $(awk '{printf "%.1f MB", length($0)/1e6}' "$out/stream-5m.jsonl") record |"
kill $short $long 2>/dev/null || true

# serve: four 4 MiB prompts at once; the server's peak RSS from /proc
port=$((20000 + RANDOM % 20000))
"$out/tpsbench" serve --model 15m --addr "127.0.0.1:$port" >/dev/null 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null || true' EXIT
for _ in $(seq 100); do curl -sf "http://127.0.0.1:$port/health" >/dev/null && break; sleep 0.1; done
idle=$(awk '/VmHWM/ {print $2}' /proc/$pid/status)
body="$out/prompt-4mib.json"
{ printf '{"prompt":"'; head -c $((4*1024*1024 - 200)) /dev/zero | tr '\0' 'a'; printf '","max_tokens":1}'; } > "$body"
start=$(date +%s.%N)
for _ in 1 2 3 4; do curl -s -o /dev/null -w '%{http_code}\n' -H 'Content-Type: application/json' --data-binary "@$body" "http://127.0.0.1:$port/v1/completions" & done | sort | uniq -c | sed 's/^/  answers: /' >&2
wait_s=$(echo "$(date +%s.%N) - $start" | bc)
echo "| four 4 MiB prompts at once | serve | $(printf '%.2f' "$wait_s") s for all four answers, $(awk '/VmHWM/ {printf "%.1f", $2/1000}' /proc/$pid/status) MB peak against $(echo "$idle" | awk '{printf "%.1f", $1/1000}') MB idle |"
exec >&-
wait "$tee_pid"
cp "$out/hostile.md" bench/results/hostile.md
