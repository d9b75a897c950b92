#!/usr/bin/env bash
# Does batching pay off end to end? System TPS of the default model (15m
# F32, 2 threads) at 1, 8 and 32 sequences, and of 110m F32 and Q4_0 at 1
# and 16, in process and over HTTP (tpsbench run --concurrency B --requests
# B*waves --max-tokens 128 against the embedded engine in its own process,
# a server a batch), each as a ratio to its batch 1, and HTTP over
# in-process at each batch. In process is the same work without HTTP (go
# test -bench ServedDecode): that many sequences take the run's 24-token
# prompt and make 128 tokens together, each sampled at temperature 1,
# prompts included in the time, as the run's window includes them.
# (Decoding only the first 60 positions without prompts or sampling, as
# BatchedDecode does, made 15m's batch 32 look 1.4x faster than the served
# work is: attention grows with the context.) Beside them, llama.cpp's own
# batched decoding of the same GGUF file (the reference program: that many
# 24-token prompts, then 127 steps decoding the sequences together, without
# sampling; its prompt time counted as ours is), and both of ours as a
# ratio to it. step ms is the in-process time a step, prompts' step
# included. Per-request TPS over HTTP and the in-process step time are
# shown side by side: the first should fall no faster than the second
# grows. From the server's metrics (--server-metrics engine): HTTP step
# ms, the run's window over the engine steps the server ran in it, gaps
# between steps included, to set against the in-process step; and HTTP
# batch, the tokens its steps generated on average, the batch it formed
# ("-" when its scrapes failed). Figures are medians of REPS runs (default
# 3), and ratios the median of the ratios within each run, with their
# range; prints Markdown and keeps it in bench/results/batching.md.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
reps=${REPS:-3}
./scripts/llamacpp >/dev/null
go build -o "$out/tpsbench" ./cmd/tpsbench
results="$out/batching.jsonl"
: > "$results"
# shape, format, then batch:waves; each batch runs that many waves of its
# sequences (as many requests, that many times over, over HTTP; that many
# times 128 steps in process) so that a measurement lasts a few seconds: a
# single 128-token request of 15m lasts 0.14 s, where one preemption of
# the shared machine moved batch 1 by 10%.
cases="15m F32 1:16,8:8,32:4
110m F32 1:4,16:2
110m Q4_0 1:16,16:4"
for r in $(seq "$reps"); do
  while read -r shape format plan; do
    fmt=$(echo "$format" | tr A-Z a-z)
    model="$out/$shape-$fmt.gguf"
    [ -f "$model" ] || "$out/tpsbench" model synth --shape "$shape" --dtype "$fmt" -o "$model"
    for bw in ${plan//,/ }; do
      b=${bw%:*} waves=${bw#*:}
      go test -run '^$' -bench "ServedDecode/$shape/$format/batch$b\$" -benchtime "$((128 * waves))x" ./engine/llama/ |
        awk -v m="$shape $format" -v b="$b" '/tok\/s/ { printf "{\"model\":\"%s\",\"where\":\"process\",\"batch\":%s,\"system_tps\":%s,\"step_ms\":%s}\n", m, b, $(NF-1), $3/1e6 }' >> "$results"
      run=$("$out/tpsbench" run --engine-model "$shape" --engine-dtype "$fmt" --concurrency "$b" --requests "$((b * waves))" --max-tokens 128 --server-metrics engine --format json --quiet 2>/dev/null)
      echo "$run" | M="$shape $format" python3 -c '
import json, os, sys
for s in json.load(sys.stdin)["steps"]:
    r = {"model": os.environ["M"], "where": "http", "batch": s["concurrency"], "system_tps": s["system_tps"], "per_request_tps": s["per_request_tps"]}
    v = s.get("server") or {}
    if v.get("engine_steps") and v.get("generated_per_engine_step"):
        r["step_ms"], r["decoded"] = s["duration_s"] * 1e3 / v["engine_steps"], v["generated_per_engine_step"]
    print(json.dumps(r))' >> "$results"
      ref=$(.cache/llamacpp/llamaref bench "$model" 2 24 127 "$b" 2>/dev/null)
      echo "$ref" | M="$shape $format" python3 -c '
import json, os, sys
r = json.load(sys.stdin)
# the prompts give each sequence its first token, the 127 steps the rest
b, prompt, steps = r["batch"], 24, 127
print(json.dumps({"model": os.environ["M"], "where": "llama.cpp", "batch": b, "system_tps": (steps + 1) * b / (prompt * b / r["prompt_tps"] + steps * b / r["gen_tps"])}))' >> "$results"
    done
  done <<< "$cases"
done
python3 - "$results" > "$out/batching.md" <<'PY'
import json, sys, statistics
# each (model, where, batch) list holds one figure a rep, in rep order
rows, models = {}, []
for line in open(sys.argv[1]):
    r = json.loads(line)
    rows.setdefault((r["model"], r["where"], r["batch"]), []).append(r)
    if r["model"] not in models:
        models.append(r["model"])
def fig(m, where, b, k="system_tps"):
    return [x[k] for x in rows[(m, where, b)]]
def med(m, where, b, k="system_tps"):
    return statistics.median(fig(m, where, b, k))
def server(m, b, k, fmt):
    # the server's figures, from the reps whose scrapes gave them
    xs = [x[k] for x in rows[(m, "http", b)] if k in x]
    return fmt.format(statistics.median(xs)) if xs else "-"
def ratio(num, den, pct=False):
    # a ratio is taken within each rep (figures measured minutes apart on
    # a shared machine), then its median and range over the reps
    rs = [x / y for x, y in zip(num, den, strict=True)]
    f = (lambda v: f"{v:.0%}") if pct else (lambda v: f"{v:.2f}x")
    if len(rs) == 1 or min(rs) == max(rs):
        return f(rs[0])
    return f"{f(statistics.median(rs))} ({f(min(rs))}-{f(max(rs))})"
print("| model | batch | in-process system tok/s | ratio to batch 1 | step ms | HTTP system tok/s | ratio to batch 1 | HTTP / in-process | HTTP per-request tok/s | HTTP step ms | HTTP batch |")
print("|---|---|---|---|---|---|---|---|---|---|---|")
for m in models:
    for b in sorted({k[2] for k in rows if k[0] == m}):
        p, h = fig(m, "process", b), fig(m, "http", b)
        print(f'| {m} | {b} | {statistics.median(p):.0f} | {ratio(p, fig(m, "process", 1))} | {med(m, "process", b, "step_ms"):.2f} | {statistics.median(h):.0f} | {ratio(h, fig(m, "http", 1))} | {ratio(h, p, True)} | {med(m, "http", b, "per_request_tps"):.0f} | {server(m, b, "step_ms", "{:.2f}")} | {server(m, b, "decoded", "{:.1f}")} |')
print("\nAgainst llama.cpp's batched decoding of the same file (2 threads)\n")
print("| model | batch | llama.cpp system tok/s | in-process / llama.cpp | HTTP / llama.cpp |")
print("|---|---|---|---|---|")
for m in models:
    for b in sorted({k[2] for k in rows if k[0] == m}):
        l = fig(m, "llama.cpp", b)
        print(f'| {m} | {b} | {statistics.median(l):.0f} | {ratio(fig(m, "process", b), l)} | {ratio(fig(m, "http", b), l)} |')
PY
cat "$out/batching.md"
if [ -z "${REPS:-}" ]; then
  cp "$out/batching.md" bench/results/batching.md
fi
