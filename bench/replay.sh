#!/usr/bin/env bash
# A proxy capture replayed against a candidate configuration. Production:
# the embedded engine (15m, throughput preset) behind tpsbench proxy, which
# records 150 requests arriving as a Poisson process of 3 a second, with
# prompts of about 400 tokens behind one of 4 shared 256-token prefixes and
# answers of about 48 tokens; both engines cache prefixes. Candidate: the
# same model with the latency preset (4 sequences, chunked prefill), sent
# the capture by run --trace:
# every request at its recorded time, with a prompt of its recorded length
# whose shared blocks are the same text (from the proxy's fingerprints;
# no prompt text is recorded) and its recorded output length. The table
# sets the two side by side (tpsbench compare) and says how faithful the
# replay was (its records' trace references).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
go build -o "$out/tpsbench" ./cmd/tpsbench
tb="$out/tpsbench"
prod=127.0.0.1:18761 proxy=127.0.0.1:18762 cand=127.0.0.1:18763
capture="$out/replay-production.jsonl" replay="$out/replay-candidate.jsonl"
rm -f "$capture" "$replay"
pids=()
trap 'kill "${pids[@]}" 2>/dev/null || true' EXIT
wait_up() { for _ in $(seq 100); do curl -sf "http://$1/health" >/dev/null 2>&1 && return; sleep 0.1; done; echo "no server at $1" >&2; exit 1; }

# shellcheck disable=SC2086
$pin0 "$tb" serve --model 15m --preset throughput --enable-prefix-caching --addr $prod 2>/dev/null & pids+=($!)
"$tb" proxy --upstream http://$prod --listen $proxy --records "$capture" 2>/dev/null & pids+=($!)
wait_up $prod
sleep 0.3
# shellcheck disable=SC2086
$pin1 "$tb" run --url http://$proxy --rate 3 --requests 150 --input-tokens 400 --input-stddev 50 \
  --prefix-tokens 256 --prefix-groups 4 --output-tokens 48 --output-stddev 16 --ignore-eos -q > /dev/null
sleep 0.5
kill "${pids[@]}"; wait "${pids[@]}" 2>/dev/null || true
pids=()

# shellcheck disable=SC2086
$pin0 "$tb" serve --model 15m --preset latency --enable-prefix-caching --addr $cand 2>/dev/null & pids+=($!)
wait_up $cand
# shellcheck disable=SC2086
$pin1 "$tb" run --url http://$cand --trace "$capture" --records "$replay" -q > /dev/null
"$tb" compare "$capture" "$replay" --format json > "$out/replay-compare.json"

python3 - "$out/replay-compare.json" > "$out/replay.md" <<'PY'
import json, sys
steps = json.load(open(sys.argv[1]))["steps"]
prod, cand = steps
print("Production (15m, throughput preset, through the proxy) against its replay (15m, latency preset); one run\n")
print("| figure | production | replay | replay / production |")
print("|---|---|---|---|")
rows = [
    ("requests completed", lambda s: s["requests"]["completed"], "%d"),
    ("system TPS (tok/s)", lambda s: s["system_tps"], "%.1f"),
    ("per-request TPS, mean (tok/s)", lambda s: s["request_tps"]["mean"], "%.1f"),
    ("TTFT p50 (ms)", lambda s: s["ttft_ms"]["p50"], "%.2f"),
    ("TTFT p99 (ms)", lambda s: s["ttft_ms"]["p99"], "%.2f"),
    ("TPOT p50 (ms)", lambda s: s["tpot_ms"]["p50"], "%.3f"),
    ("TPOT p99 (ms)", lambda s: s["tpot_ms"]["p99"], "%.3f"),
    ("E2E p50 (ms)", lambda s: s["e2e_ms"]["p50"], "%.1f"),
    ("E2E p99 (ms)", lambda s: s["e2e_ms"]["p99"], "%.1f"),
]
for name, get, fmt in rows:
    a, b = get(prod), get(cand)
    ratio = "%.2fx" % (b / a) if a else "-"
    print(f"| {name} | {fmt % a} | {fmt % b} | {ratio} |")
r = cand["replay"]
print("\nHow faithful the replay was (from its records)\n")
print("| figure | value |")
print("|---|---|")
lag = r["arrival_lag_ms"]
print(f"| arrival error: sent after the trace time, p50 / p99 / max | {lag['p50']:.3f} / {lag['p99']:.3f} / {lag['max']:.3f} ms |")
print(f"| prompts of exactly the trace's length | {r['input_exact']} of {r['input_counted']} (mean error {r['input_error_mean']:.2f} tokens) |")
print(f"| outputs of exactly the trace's length | {r['output_exact']} of {r['completed']} |")
print(f"| prefix reuse in the trace | {100 * r['reusable_tokens'] / r['trace_input_tokens']:.1f}% of prompt tokens |")
PY
cat "$out/replay.md"
cp "$out/replay.md" bench/results/replay.md
