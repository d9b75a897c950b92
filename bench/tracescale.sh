#!/usr/bin/env bash
# A trace is read as it is due, never whole: run --trace over Mooncake
# traces of 10,000 and 1,000,000 requests (one every 10 ms, prompts of
# 100-4,000 tokens in 512-token blocks, a tenth of them sharing a block
# with an earlier one), replaying the last 100 requests (--trace-window:
# the reader goes through every line before them) against the scripted
# server. Peak memory should not grow with the trace. Prints a Markdown
# table and keeps it in bench/results/tracescale.md.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
go build -o "$out/scripted-server" ./bench/cmd/scripted-server
go build -o "$out/tpsbench" ./cmd/tpsbench
"$out/scripted-server" -addr 127.0.0.1:18781 -ttft 1ms -gap 1ms >/dev/null 2>&1 &
server=$!
trap 'kill $server 2>/dev/null || true' EXIT
sleep 0.3
results="$out/tracescale.jsonl"
: > "$results"
for n in 10000 1000000; do
  trace="$out/trace-$n.jsonl"
  python3 - "$n" > "$trace" <<'PY'
import json, random, sys
n = int(sys.argv[1]); rng = random.Random(7); next_id = 0
for i in range(n):
    inp = rng.randint(100, 4000); blocks = (inp + 511) // 512
    ids = list(range(next_id, next_id + blocks)); next_id += blocks
    if i and rng.random() < 0.1:
        ids[0] = rng.randrange(next_id - blocks)
    print(json.dumps({"timestamp": i * 10, "input_length": inp, "output_length": rng.randint(1, 8), "hash_ids": ids}))
PY
  from=$(( (n - 100) * 10 ))ms
  /usr/bin/time -f '%M %e' -o "$out/tracescale.time" "$out/tpsbench" run --url http://127.0.0.1:18781 --trace "$trace" \
    --trace-window "$from-" --format json -q > "$out/tracescale-run.json"
  read -r rss wall < "$out/tracescale.time"
  python3 - "$n" "$rss" "$wall" "$(stat -c %s "$trace")" "$out/tracescale-run.json" >> "$results" <<'PY'
import json, sys
n, rss, wall, size, path = sys.argv[1:]
s = json.load(open(path))["steps"][0]
print(json.dumps({"lines": int(n), "mb": int(size) / 1e6, "replayed": s["requests"]["completed"], "rss_mb": int(rss) / 1024, "wall_s": float(wall)}))
PY
done
python3 - "$results" > "$out/tracescale.md" <<'PY'
import json, sys
print("| trace lines | file MB | requests replayed | peak RSS MB | wall s |")
print("|---|---|---|---|---|")
for l in open(sys.argv[1]):
    r = json.loads(l)
    print(f'| {r["lines"]:,} | {r["mb"]:.0f} | {r["replayed"]} | {r["rss_mb"]:.0f} | {r["wall_s"]:.1f} |')
PY
cat "$out/tracescale.md"
cp "$out/tracescale.md" bench/results/tracescale.md
