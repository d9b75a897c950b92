#!/usr/bin/env bash
# Embedding throughput of the engine next to llama.cpp's on the same GGUF
# files, in one run: BATCH sequences of TOKENS tokens (default 64) in one
# step, every token's final hidden state mean-pooled (llama.cpp: an
# embeddings context with mean pooling, one decode, as llama-server runs
# an embeddings batch), at batch 1 to 64, THREADS threads (default 2).
# Each figure is the median of REPS runs (default 3) of ROUNDS timed steps
# (default 5). The full run takes about an hour on two cores; PRESETS=15m
# takes minutes. Prints Markdown and keeps it in bench/results/embeddings.md.
set -euo pipefail
cd "$(dirname "$0")/.."
reps=${REPS:-3}
presets=${PRESETS:-"15m 110m"}
formats=${FORMATS:-"f32 q8_0"}
batches=${BATCHES:-"1 2 4 8 16 32 64"}
tokens=${TOKENS:-64}
threads=${THREADS:-2}
rounds=${ROUNDS:-5}
out=bench/out
mkdir -p "$out"
./scripts/llamacpp >/dev/null
go build -o "$out/tpsbench" ./cmd/tpsbench
go build -o "$out/enginebench" ./bench/cmd/enginebench
results="$out/embeddings.jsonl"
: > "$results"
for p in $presets; do
  for d in $formats; do
    model="$out/$p-$d.gguf"
    [ -f "$model" ] || "$out/tpsbench" model synth --shape "$p" --dtype "$d" -o "$model"
    for b in $batches; do
      for r in $(seq "$reps"); do
        .cache/llamacpp/llamaref benchembed "$model" "$threads" "$tokens" "$b" "$rounds" 2>/dev/null | sed "s/^{/{\"preset\":\"$p\",\"format\":\"$d\",/" >> "$results"
        "$out/enginebench" -threads "$threads" -prompt "$tokens" -embed "$b" -rounds "$rounds" "$model" | sed "s/^{/{\"preset\":\"$p\",\"format\":\"$d\",/" >> "$results"
      done
    done
  done
done
python3 - "$results" "$tokens" "$threads" > "$out/embeddings.md" <<'PY'
import json, sys, statistics
rows = {}
for line in open(sys.argv[1]):
    r = json.loads(line)
    rows.setdefault((r["preset"], r["format"], r["batch"]), {}).setdefault(r["engine"], []).append(r["embeddings_per_s"])
print(f"Inputs of {sys.argv[2]} tokens, mean-pooled, {sys.argv[3]} threads; medians of the runs (bench/embeddings.sh).")
print()
print("| model | format | batch | tpsbench embeddings/s | llama.cpp embeddings/s | ratio |")
print("|---|---|---|---|---|---|")
for (p, f, b), e in rows.items():
    ours, ref = statistics.median(e["tpsbench"]), statistics.median(e["llama.cpp"])
    print(f"| {p} | {f.upper()} | {b} | {ours:.1f} | {ref:.1f} | {ours/ref:.2f}x |")
PY
cat "$out/embeddings.md"
if [ -z "${REPS:-}${PRESETS:-}${FORMATS:-}${BATCHES:-}${TOKENS:-}${THREADS:-}${ROUNDS:-}" ]; then # the full run is the one kept
  cp "$out/embeddings.md" bench/results/embeddings.md
fi
