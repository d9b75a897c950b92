#!/usr/bin/env bash
# Engine speed next to llama.cpp's on the same GGUF files, in one run:
# prompt processing and generation tokens/s at batch 1 with 1 and 2 threads,
# for each preset and weight format, and the ratio (tpsbench / llama.cpp).
# Each figure is the median of REPS runs (default 3). Prints Markdown and
# keeps it in bench/results/engine.md.
set -euo pipefail
cd "$(dirname "$0")/.."
reps=${REPS:-3}
presets=${PRESETS:-"15m 110m"}
formats=${FORMATS:-"f32 f16 q8_0 q4_0"}
out=bench/out
mkdir -p "$out"
./scripts/llamacpp >/dev/null
go build -o "$out/tpsbench" ./cmd/tpsbench
go build -o "$out/enginebench" ./bench/cmd/enginebench
results="$out/engine.jsonl"
: > "$results"
for p in $presets; do
  for d in $formats; do
    model="$out/$p-$d.gguf"
    [ -f "$model" ] || "$out/tpsbench" model synth --shape "$p" --dtype "$d" -o "$model"
    for t in 1 2; do
      for r in $(seq "$reps"); do
        .cache/llamacpp/llamaref bench "$model" "$t" 128 64 2>/dev/null | sed "s/^{/{\"preset\":\"$p\",\"format\":\"$d\",/" >> "$results"
        "$out/enginebench" -threads "$t" -prompt 128 -gen 64 "$model" | sed "s/^{/{\"preset\":\"$p\",\"format\":\"$d\",/" >> "$results"
      done
    done
  done
done
python3 - "$results" > "$out/engine.md" <<'PY'
import json, sys, statistics
rows = {}
for line in open(sys.argv[1]):
    r = json.loads(line)
    rows.setdefault((r["preset"], r["format"], r["threads"], r["engine"]), []).append(r)
print("| model | format | threads | tpsbench prompt tok/s | llama.cpp prompt tok/s | tpsbench gen tok/s | llama.cpp gen tok/s | gen ratio |")
print("|---|---|---|---|---|---|---|---|")
seen = []
for (p, f, t, e) in rows:
    if (p, f, t) in seen: continue
    seen.append((p, f, t))
    med = lambda eng, k: statistics.median(x[k] for x in rows[(p, f, t, eng)])
    ours, ref = med("tpsbench", "gen_tps"), med("llama.cpp", "gen_tps")
    print(f'| {p} | {f.upper()} | {t} | {med("tpsbench","prompt_tps"):.0f} | {med("llama.cpp","prompt_tps"):.0f} | {ours:.1f} | {ref:.1f} | {ours/ref:.2f}x |')
PY
# whole: keep it for scripts/readme-tables, which copies it into the README
cat "$out/engine.md"
if [ -z "${REPS:-}${PRESETS:-}${FORMATS:-}" ]; then # the README's table is the full one
  cp "$out/engine.md" bench/results/engine.md
fi
