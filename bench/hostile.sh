#!/usr/bin/env bash
# Peak memory (RSS) of tpsbench on crafted inputs that once made it grow
# without bound: records far apart in time (report and watch kept a 100 ms
# bin for the whole span), a GGUF file of one 64 MB metadata array, a 1 GB
# records file of one line, and serve under four 4 MiB prompts at once.
source "$(dirname "$0")/lib.sh"
set -euo pipefail
go build -o "$out/tpsbench" ./cmd/tpsbench
go run ./bench/cmd/hostilefiles -dir "$out"
peak() { # command... -> "seconds s, KB peak" (exit status ignored: some inputs are refused)
  /usr/bin/time -f "%e s, %M KB peak" "$@" 2>&1 >/dev/null | tail -1
}
echo "input | command | time, peak RSS"
for d in 7 30 365; do
  echo "two records ${d} days apart | report | $(peak "$out/tpsbench" report "$out/apart-${d}d.jsonl")"
  echo "two records ${d} days apart | watch --once | $(peak "$out/tpsbench" watch --once "$out/apart-${d}d.jsonl")"
done
echo "GGUF of one 64 MB uint8 array | model info | $(peak "$out/tpsbench" model info "$out/array-64mb.gguf")"
echo "1 GB records file of one line | report | $(peak "$out/tpsbench" report "$out/line-1gb.jsonl")"
echo "/dev/zero | watch --once | $(peak "$out/tpsbench" watch --once /dev/zero)"

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
echo "four 4 MiB prompts at once | serve | ${wait_s%???????} s, $(awk '/VmHWM/ {print $2}' /proc/$pid/status) KB peak (idle: $idle KB)"
