#!/usr/bin/env bash
# tpsbench serve beside llama.cpp's own server (scripts/llamaserver) on the
# same GGUF files: 15m F32, 110m F32, Q8_0 and Q4_0 (synth's dummy
# weights). Each server gets 2 threads and 8 slots (llama-server -np 8
# over a context of 8,192; tpsbench serve --max-num-seqs 8), one server
# up at a time, their order reversed every other rep; tpsbench run
# measures each at 1, 4 and 8 streams on /v1/completions (4 requests a
# stream, 64-token prompts, 128 tokens each with ignore_eos, temperature
# 0, one warm-up request a stream; prompts drawn anew for every run, as
# llama-server would skip the prefill of a prompt a slot saw before). Not
# chat: the servers build different chat prompts for the same messages
# (llama-server's chatml template is about 50 of a 64-token prompt on
# these vocabularies, and it keeps that prefix in each slot's cache), so
# their prefill would not be the same work. Figures are medians over REPS reps (default 2): system
# TPS, and the median request's TTFT and TPOT, with the ratio of the two
# servers' system TPS. A server that crashes or fails requests is shown as
# such (and the script goes on); failed requests are counted beside it.
# MODELS ("shape FORMAT" lines) and LEVELS (streams, e.g. "8") choose a
# part of it. Prints Markdown and keeps it in bench/results/llamaserver.md
# when the whole of it ran.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
reps=${REPS:-2}
./scripts/llamaserver
go build -o "$out/tpsbench" ./cmd/tpsbench
results="$out/llamaserver.jsonl"
: > "$results"
port=18791
url="http://127.0.0.1:$port"
server=""
trap '[ -n "$server" ] && kill "$server" 2>/dev/null || true' EXIT

# start_server NAME MODEL: starts one server and waits until it answers
start_server() {
  case "$1" in
    tpsbench) "$out/tpsbench" serve --model "$2" --threads 2 --max-num-seqs 8 --addr "127.0.0.1:$port" > "$out/llamaserver-server.log" 2>&1 & ;;
    llama.cpp) .cache/llamaserver/llama-server -m "$2" --host 127.0.0.1 --port "$port" -t 2 -np 8 -c 8192 > "$out/llamaserver-server.log" 2>&1 & ;;
  esac
  server=$!
  for _ in $(seq 600); do
    curl -fsS "$url/health" >/dev/null 2>&1 && return 0
    kill -0 "$server" 2>/dev/null || break
    sleep 0.1
  done
  echo "$1 did not start on $2: $(tail -3 "$out/llamaserver-server.log")" >&2
  return 1
}

stop_server() {
  kill "$server" 2>/dev/null || true
  wait "$server" 2>/dev/null || true
  server=""
}

models=${MODELS:-"15m F32
110m F32
110m Q8_0
110m Q4_0"}
levels=${LEVELS:-"1 4 8"}
for r in $(seq "$reps"); do
  order="tpsbench llama.cpp"
  [ $((r % 2)) -eq 0 ] && order="llama.cpp tpsbench"
  while read -r shape format; do
    fmt=$(echo "$format" | tr A-Z a-z)
    model="$out/$shape-$fmt.gguf"
    [ -f "$model" ] || "$out/tpsbench" model synth --shape "$shape" --dtype "$fmt" -o "$model"
    for name in $order; do
      if ! start_server "$name" "$model"; then
        stop_server
        echo "{\"model\":\"$shape $format\",\"server\":\"$name\",\"crashed\":\"did not start\"}" >> "$results"
        continue
      fi
      for c in $levels; do
        if ! kill -0 "$server" 2>/dev/null; then
          echo "{\"model\":\"$shape $format\",\"server\":\"$name\",\"concurrency\":$c,\"crashed\":\"exited\"}" >> "$results"
          continue
        fi
        # prompts of their own each run (--seed): llama-server keeps each
        # slot's last prompt and would skip a repeated one's prefill
        run=$("$out/tpsbench" run --url "$url" --api completions --concurrency "$c" --requests "$((4 * c))" --warmup "$c" --input-tokens 64 --seed "$((100 * r + c))" \
          --max-tokens 128 --ignore-eos --temperature 0 --timeout 120s --format json --quiet 2>/dev/null || true)
        alive=1
        kill -0 "$server" 2>/dev/null || alive=0
        echo "$run" | M="$shape $format" S="$name" C="$c" ALIVE="$alive" python3 -c '
import json, os, sys
r = {"model": os.environ["M"], "server": os.environ["S"], "concurrency": int(os.environ["C"])}
try:
    s = json.load(sys.stdin)["steps"][0]
    r.update(system_tps=s["system_tps"], ttft=s["ttft_ms"].get("p50"), ttft99=s["ttft_ms"].get("p99"), tpot=s["tpot_ms"].get("p50"),
             failed=s["requests"]["failed"], failures=s["requests"].get("failures") or {}, retried=s.get("retried", 0))
except Exception as e:
    r["crashed"] = "no report"
if os.environ["ALIVE"] == "0":
    r["crashed"] = "crashed during the run"
print(json.dumps(r))' >> "$results"
      done
      if ! kill -0 "$server" 2>/dev/null; then
        echo "$name crashed serving $model: $(tail -3 "$out/llamaserver-server.log")" >&2
      fi
      stop_server
    done
  done <<< "$models"
done

python3 - "$results" "$reps" "$levels" > "$out/llamaserver.md" <<'PY'
import json, sys, statistics
rows, models = {}, []
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r["model"] not in models:
        models.append(r["model"])
    rows.setdefault((r["model"], r["server"], r.get("concurrency")), []).append(r)
def med(m, s, c, k):
    xs = [x[k] for x in rows.get((m, s, c), []) if x.get(k) is not None and "crashed" not in x]
    return statistics.median(xs) if xs else None
def note(m, s, c):
    rs = rows.get((m, s, c), []) + rows.get((m, s, None), [])
    crashed = [x["crashed"] for x in rs if "crashed" in x]
    kinds = {}
    for x in rs:
        for k, n in (x.get("failures") or {}).items():
            kinds[k] = kinds.get(k, 0) + n
    out = []
    if crashed:
        out.append(f"{crashed[0]} in {len(crashed)} of {len(rs)} reps")
    if kinds:
        out.append("failed: " + ", ".join(f"{n} {k}" for k, n in sorted(kinds.items())))
    return "; ".join(out)
def f(v, fmt):
    return "-" if v is None else fmt.format(v)
levels = [int(c) for c in sys.argv[3].split()]
print(f"System TPS, and the median request's TTFT and TPOT, at {', '.join(map(str, levels))} streams (2 threads each, medians of {sys.argv[2]} reps):\n")
print("| model | streams | tpsbench serve tok/s | llama-server tok/s | ratio | TTFT ms (ours / llama) | TPOT ms (ours / llama) | notes |")
print("|---|---|---|---|---|---|---|---|")
for m in models:
    for c in levels:
        a, b = med(m, "tpsbench", c, "system_tps"), med(m, "llama.cpp", c, "system_tps")
        ratio = f"{a / b:.2f}x" if a and b else "-"
        notes = "; ".join(x for x in (("ours: " + note(m, "tpsbench", c)) if note(m, "tpsbench", c) else "",
                                       ("llama-server: " + note(m, "llama.cpp", c)) if note(m, "llama.cpp", c) else "") if x)
        print(f"| {m} | {c} | {f(a, '{:,.0f}')} | {f(b, '{:,.0f}')} | {ratio} | "
              f"{f(med(m, 'tpsbench', c, 'ttft'), '{:.1f}')} / {f(med(m, 'llama.cpp', c, 'ttft'), '{:.1f}')} | "
              f"{f(med(m, 'tpsbench', c, 'tpot'), '{:.2f}')} / {f(med(m, 'llama.cpp', c, 'tpot'), '{:.2f}')} | {notes} |")
print(f"\nThe TTFT's p99 (medians of {sys.argv[2]} reps):\n")
print("| model | streams | TTFT p99 ms (ours / llama) |")
print("|---|---|---|")
for m in models:
    for c in levels:
        print(f"| {m} | {c} | {f(med(m, 'tpsbench', c, 'ttft99'), '{:.1f}')} / {f(med(m, 'llama.cpp', c, 'ttft99'), '{:.1f}')} |")
PY
if [ -z "${MODELS:-}" ] && [ -z "${LEVELS:-}" ]; then
  mkdir -p bench/results
  cp "$out/llamaserver.md" bench/results/llamaserver.md
fi
cat "$out/llamaserver.md"
