#!/usr/bin/env bash
# The factors of docs/design.md on the embedded engine (issue targets in
# brackets), measured in one run on this machine with 2 threads; the
# Markdown it prints is kept in bench/results/factors.md:
#   batch:        110m decode tokens/s at batch 1 and 16, F32 and Q4_0,
#                 next to llama.cpp's on the same files   [batch 16 >= 3x batch 1]
#   quantization: 110m generation tokens/s, Q8_0 against F32 [>= 1.5x]
#   prefix cache: TTFT of a 512-token shared prefix, cold against warm [>= 5x]
#   presets:      p99 inter-token latency of 4 running streams while a
#                 2,000-token prompt is processed, against before [<= 2x
#                 under the latency preset]
#   roofline:     110m F32 batch-1 generation against this machine's
#                 memory-bandwidth bound [>= 60%]
set -euo pipefail
cd "$(dirname "$0")/.."
out=bench/out
mkdir -p "$out"
./scripts/llamacpp >/dev/null
go build -o "$out/tpsbench" ./cmd/tpsbench
go build -o "$out/enginebench" ./bench/cmd/enginebench
go build -o "$out/latencybench" ./bench/cmd/latencybench
for d in f32 q8_0 q4_0; do
  [ -f "$out/110m-$d.gguf" ] || "$out/tpsbench" model synth --shape 110m --dtype "$d" -o "$out/110m-$d.gguf"
done
# the Markdown goes to stdout and, once whole, to bench/results/factors.md,
# which scripts/readme-tables copies into the README
exec > >(tee "$out/factors.md")
tee_pid=$!

echo "#### Batch (110m, 2 threads, decode tokens/s; tpsbench: medians of 3)"
echo
echo "| format | tpsbench batch 1 | tpsbench batch 16 | ratio | llama.cpp batch 1 | llama.cpp batch 16 | ratio |"
echo "|---|---|---|---|---|---|---|"
for d in F32 Q4_0; do
  lower=$(echo "$d" | tr 'A-Z' 'a-z')
  # medians of 3 runs of 40 steps each
  ours=$(go test -run '^$' -bench "BatchedDecode/110m/$d/batch(1|16)\$" -benchtime 40x -count 3 ./engine/llama/ | awk '/tok\/s/ {print $(NF-1)}')
  b1=$(echo "$ours" | sed -n 1,3p | sort -g | sed -n 2p); b16=$(echo "$ours" | sed -n 4,6p | sort -g | sed -n 2p)
  ref=$(.cache/llamacpp/llamaref bench "$out/110m-$lower.gguf" 2 16 64 1 2>/dev/null)
  l1=$(echo "$ref" | python3 -c 'import json,sys; print(json.load(sys.stdin)["gen_tps"])')
  ref=$(.cache/llamacpp/llamaref bench "$out/110m-$lower.gguf" 2 16 64 16 2>/dev/null)
  l16=$(echo "$ref" | python3 -c 'import json,sys; print(json.load(sys.stdin)["gen_tps"])')
  python3 -c "print(f'| $d | {$b1:.1f} | {$b16:.1f} | {$b16/$b1:.2f}x | {$l1:.1f} | {$l16:.1f} | {$l16/$l1:.2f}x |')"
done

echo
echo "#### Quantization (110m, batch 1, 2 threads, median of 3)"
echo
med() { python3 -c 'import json,sys,statistics; print(statistics.median(json.loads(l)["gen_tps"] for l in sys.stdin))'; }
runs=$(for r in 1 2 3; do "$out/enginebench" -threads 2 "$out/110m-f32.gguf"; done)
f32=$(echo "$runs" | med)
runs=$(for r in 1 2 3; do "$out/enginebench" -threads 2 "$out/110m-q8_0.gguf"; done)
q8=$(echo "$runs" | med)
runs=$(for r in 1 2 3; do "$out/enginebench" -threads 2 "$out/110m-q4_0.gguf"; done)
q4=$(echo "$runs" | med)
python3 -c "print(f'F32 {$f32:.1f} tok/s, Q8_0 {$q8:.1f} ({$q8/$f32:.2f}x), Q4_0 {$q4:.1f} ({$q4/$f32:.2f}x)')"

echo
echo "#### Prefix cache (110m Q8_0, 512-token shared prefix)"
echo
run=$("$out/tpsbench" run --factor prefix-cache --engine-model 110m --engine-dtype q8_0 --max-tokens 20 --format json -q)
echo "$run" | python3 -c 'import json,sys; s=json.load(sys.stdin)["steps"]; c,w=s[0]["ttft_ms"]["p50"],s[1]["ttft_ms"]["p50"]; print(f"TTFT cold {c:.0f} ms, warm {w:.0f} ms: {c/w:.1f}x")'

echo
echo "#### Presets: a 2,000-token prompt arriving while 4 streams decode (110m Q8_0)"
echo
for p in latency throughput; do
  run=$("$out/latencybench" -preset "$p")
  echo "$run" | python3 -c '
import json, sys
r = json.load(sys.stdin)
print("%s: ITL p99 %.1f ms before, %.1f ms during (%.2fx); the long prompt waited %.1f s for its first token" % (
    r["preset"], r["itl_before_p99_ms"], r["itl_during_p99_ms"], r["p99_ratio"], r["long_ttft_ms"] / 1000))'
done

echo
echo "#### Roofline (110m F32, batch 1; bandwidth and engine measured back to back, median of 3 pairs)"
echo
# the host's bandwidth moves from minute to minute: each engine run is set
# against a probe taken just before it
for r in 1 2 3; do
  bound=$("$out/tpsbench" estimate --model "$out/110m-f32.gguf" --hardware this --batch 1 --context 192 --kv-dtype f32 | grep -E '^ *this ')
  run=$("$out/enginebench" -threads 2 "$out/110m-f32.gguf")
  got=$(echo "$run" | python3 -c 'import json,sys; print(json.load(sys.stdin)["gen_tps"])')
  echo "$bound" | awk -v got="$got" '{printf "%.4f %s %s %.1f\n", got/$(NF-1), $(NF-1), $2, got}'
done | sort -g | sed -n 2p |
  awk '{printf "bound %s tok/s from %s GB/s measured; engine %.1f tok/s = %.0f%% of it\n", $2, $3, $4, 100*$1}'
exec >&-
wait "$tee_pid"
cp "$out/factors.md" bench/results/factors.md
