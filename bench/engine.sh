#!/usr/bin/env bash
# Engine speed next to llama.cpp's on the same GGUF files, in one run:
# prompt processing and generation tokens/s at batch 1 with 1 and 2 threads,
# for each preset and weight format, and the ratio (tpsbench / llama.cpp).
# Formats synth does not write (q4_k_m, q5_k_m, q6_k, q3_k_m, q2_k, bf16) are
# made from the F16 file by llama.cpp's own quantizer, as llama-quantize
# makes the files people download. The shapes of Qwen2.5-0.5B and
# Llama-3.2-1B (BIG_PRESETS) are measured in BIG_FORMATS only: their F32
# files would be 2 and 5 GB.
# Each figure is the median of REPS runs (default 3). Prints Markdown and
# keeps it in bench/results/engine.md.
set -euo pipefail
cd "$(dirname "$0")/.."
reps=${REPS:-3}
presets=${PRESETS:-"15m 110m"}
formats=${FORMATS:-"f32 f16 bf16 q8_0 q4_0 q4_k_m q5_k_m q6_k"}
big_presets=${BIG_PRESETS:-"qwen2.5-0.5b llama-3.2-1b"}
big_formats=${BIG_FORMATS:-"q4_k_m q5_k_m q6_k"}
out=bench/out
mkdir -p "$out"
./scripts/llamacpp >/dev/null
go build -o "$out/tpsbench" ./cmd/tpsbench
go build -o "$out/enginebench" ./bench/cmd/enginebench
results="$out/engine.jsonl"
# llama_ftype of a llama-quantize file type
ftype() {
  case "$1" in
    q4_k_m) echo 15 ;; q5_k_m) echo 17 ;; q6_k) echo 18 ;; q3_k_m) echo 12 ;; q2_k) echo 10 ;; bf16) echo 32 ;;
    *) echo "engine.sh: unknown format $1" >&2; exit 2 ;;
  esac
}
: > "$results"
# the preset-format pairs to measure
pairs=""
for p in $presets; do for d in $formats; do pairs="$pairs $p:$d"; done; done
for p in $big_presets; do for d in $big_formats; do pairs="$pairs $p:$d"; done; done
for pair in $pairs; do
  p=${pair%%:*} d=${pair#*:}
    model="$out/$p-$d.gguf"
    if [ ! -f "$model" ]; then
      case "$d" in
        f32|f16|q8_0|q4_0) "$out/tpsbench" model synth --shape "$p" --dtype "$d" -o "$model" ;;
        *) ftype=$(ftype "$d")
           [ -f "$out/$p-f16.gguf" ] || "$out/tpsbench" model synth --shape "$p" --dtype f16 -o "$out/$p-f16.gguf"
           .cache/llamacpp/llamaref quantize "$out/$p-f16.gguf" "$model" "$ftype" ;;
      esac
    fi
    for t in 1 2; do
      for r in $(seq "$reps"); do
        .cache/llamacpp/llamaref bench "$model" "$t" 128 64 2>/dev/null | sed "s/^{/{\"preset\":\"$p\",\"format\":\"$d\",/" >> "$results"
        "$out/enginebench" -threads "$t" -prompt 128 -gen 64 "$model" | sed "s/^{/{\"preset\":\"$p\",\"format\":\"$d\",/" >> "$results"
      done
    done
done
python3 - "$results" > "$out/engine.md" <<'PY'
import json, sys, statistics
rows = {}
for line in open(sys.argv[1]):
    r = json.loads(line)
    rows.setdefault((r["preset"], r["format"], r["threads"], r["engine"]), []).append(r)
print("| model | format | threads | tpsbench prompt tok/s | llama.cpp prompt tok/s | prompt ratio | tpsbench gen tok/s | llama.cpp gen tok/s | gen ratio |")
print("|---|---|---|---|---|---|---|---|---|")
seen = []
for (p, f, t, e) in rows:
    if (p, f, t) in seen: continue
    seen.append((p, f, t))
    med = lambda eng, k: statistics.median(x[k] for x in rows[(p, f, t, eng)])
    ours, ref = med("tpsbench", "gen_tps"), med("llama.cpp", "gen_tps")
    pours, pref = med("tpsbench", "prompt_tps"), med("llama.cpp", "prompt_tps")
    print(f'| {p} | {f.upper()} | {t} | {pours:.0f} | {pref:.0f} | {pours/pref:.2f}x | {ours:.1f} | {ref:.1f} | {ours/ref:.2f}x |')
PY
# whole: keep it for scripts/readme-tables, which copies it into the README
cat "$out/engine.md"
if [ -z "${REPS:-}${PRESETS:-}${FORMATS:-}${BIG_PRESETS:-}${BIG_FORMATS:-}" ]; then # the README's table is the full one
  cp "$out/engine.md" bench/results/engine.md
fi
