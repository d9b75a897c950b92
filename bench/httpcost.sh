#!/usr/bin/env bash
# Where the time HTTP adds to a step goes. The default model (15m F32, 2
# threads) decodes batches of 1, 8 and 32 sequences four ways: the engine
# alone (go test -bench ServedDecode, its decode-ms: a decoding step with
# its sampling, prompts' steps left out); through the scheduler without
# HTTP (engine/sched's BenchmarkScheduled: requests submitted at once,
# each drained by a goroutine as a handler drains it, its decode-ms the
# mean gap between a request's tokens); served over HTTP to a client that
# reads nothing until its requests have ended (bench/cmd/sinkclient: the
# server's own cost); and served to tpsbench run (the server's cost and
# the client's reads on the same two cores). The HTTP figures are the
# server's own mean inter-token latency (its /metrics), timed as the
# scheduler benchmark times its gaps, so all four are the same step timed
# by the one doing it. Each of REPS rounds (default 5) runs the four in
# turn, the order reversed every other round so that none gains from
# going first; figures are medians over the rounds. Prints Markdown and
# keeps it in bench/results/httpcost.md.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
reps=${REPS:-5}
go build -o "$out/tpsbench" ./cmd/tpsbench
go build -o "$out/sinkclient" ./bench/cmd/sinkclient
go test -c -o "$out/llama.test" ./engine/llama/
go test -c -o "$out/sched.test" ./engine/sched/
port=18761
url=http://127.0.0.1:$port
"$out/tpsbench" serve --addr 127.0.0.1:$port --model 15m --threads 2 --max-num-seqs 32 >/dev/null 2>&1 &
server=$!
trap 'kill $server 2>/dev/null || true; wait $server 2>/dev/null || true' EXIT
for _ in $(seq 100); do curl -fsS "$url/v1/models" >/dev/null 2>&1 && break; sleep 0.1; done
model=$(curl -fsS "$url/v1/models" | python3 -c 'import json, sys; print(json.load(sys.stdin)["data"][0]["id"])')
results="$out/httpcost.jsonl"
: > "$results"
decodems() { # way batch: the decode-ms of the benchmark output on stdin
  awk -v w="$1" -v b="$2" '/decode-ms/ { for (i = 1; i < NF; i++) if ($(i+1) == "decode-ms") printf "{\"way\":\"%s\",\"batch\":%s,\"step_ms\":%s}\n", w, b, $i }' >> "$results"
}
measure() { # way batch waves
  local r
  case $1 in
    process)
      r=$("$out/llama.test" -test.run '^$' -test.bench "ServedDecode/15m/F32/batch$2\$" -test.benchtime "$((128 * $3))x")
      echo "$r" | decodems process "$2" ;;
    sched)
      r=$("$out/sched.test" -test.run '^$' -test.bench "Scheduled/15m/F32/batch$2\$" -test.benchtime "$3x")
      echo "$r" | decodems sched "$2" ;;
    sink)
      r=$("$out/sinkclient" -url "$url" -model "$model" -concurrency "$2" -waves "$3" -max-tokens 128)
      echo "$r" | python3 -c 'import json, sys; r = json.load(sys.stdin); print(json.dumps({"way": "sink", "batch": '"$2"', "step_ms": r["itl_mean_ms"]}))' >> "$results" ;;
    run)
      r=$("$out/tpsbench" run --url "$url" --concurrency "$2" --requests "$(($2 * $3))" --max-tokens 128 --ignore-eos --server-metrics "$url/metrics" --format json --quiet 2>/dev/null)
      echo "$r" | python3 -c 'import json, sys; s = json.load(sys.stdin)["steps"][0]; print(json.dumps({"way": "run", "batch": '"$2"', "step_ms": s["server"]["itl_mean_ms"]}))' >> "$results" ;;
  esac
}
for rep in $(seq "$reps"); do
  ways="process sched sink run"
  [ $((rep % 2)) = 0 ] && ways="run sink sched process"
  for bw in 1:16 8:8 32:4; do
    for way in $ways; do measure "$way" "${bw%:*}" "${bw#*:}"; done
  done
done
python3 - "$results" "$reps" > "$out/httpcost.md" <<'PY'
import json, sys, statistics
steps = {}
for line in open(sys.argv[1]):
    r = json.loads(line)
    steps.setdefault((r["batch"], r["way"]), []).append(r["step_ms"])
print(f"Medians over {sys.argv[2]} rounds; a decoding step's time in ms, and what each layer adds as a share of the engine's step alone.\n")
print("| batch | engine alone | through the scheduler | HTTP, nothing reading | HTTP, tpsbench run reading | added by the scheduler | by the server's HTTP | by the client's reads |")
print("|---|---|---|---|---|---|---|---|")
for b in sorted({k[0] for k in steps}):
    p, c, s, r = (statistics.median(steps[(b, w)]) for w in ("process", "sched", "sink", "run"))
    print(f"| {b} | {p:.2f} | {c:.2f} | {s:.2f} | {r:.2f} | {(c - p) / p:+.0%} | {(s - c) / p:+.0%} | {(r - s) / p:+.0%} |")
PY
cat "$out/httpcost.md"
if [ -z "${REPS:-}" ]; then
  cp "$out/httpcost.md" bench/results/httpcost.md
fi
