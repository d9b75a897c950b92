#!/usr/bin/env bash
# Mutation scores of the packages that compute and read figures: for each,
# N viable mutants (default 100) made by bench/cmd/mutants, drawn with
# SEED (a fresh one each run unless given, printed so a run can be
# repeated: the tests are held to mutants nobody chose), judged by the
# tests named, the score killed / (killed + survived), and the surviving
# mutants listed. Mutants listed in bench/mutation-equivalent.txt
# (changes that cannot alter behaviour) are set aside. Slow: each mutant
# builds and runs its tests (5-15 s), so it is not part of the test
# command. Prints Markdown and keeps it in bench/results/mutation.md.
set -euo pipefail
cd "$(dirname "$0")/.."
n=${N:-100}
seed=${SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
echo "mutation: seed $seed (SEED=$seed repeats this draw)" >&2
out=bench/out
mkdir -p "$out"
go build -o "$out/mutants" ./bench/cmd/mutants
results="$out/mutation.jsonl"
: > "$results"
# package, files, judging tests
while read -r pkg files tests; do
  echo "mutating $pkg ($files), judged by $tests" >&2
  "$out/mutants" -pkg "$pkg" -files "$files" -tests "$tests" -n "$n" -seed "$seed" -equivalent bench/mutation-equivalent.txt | tail -1 >> "$results"
done <<'LIST'
./metrics *.go ./metrics
./record *.go ./record
./trace *.go ./trace
./client scan*.go,sse.go,ndjson.go,response.go,counts.go,api_*.go ./client
LIST
python3 - "$results" "$n" "$seed" > "$out/mutation.md" <<'PY'
import json, sys
print(f"{sys.argv[2]} mutants a package's files, drawn with seed {sys.argv[3]} (bench/mutation.sh).")
print()
print("| package | files | killed | survived | not viable | equivalent | score |")
print("|---|---|---|---|---|---|---|")
rows = [json.loads(l) for l in open(sys.argv[1])]
for r in rows:
    print(f'| {r["package"]} | {r["files"]} | {r["killed"]} | {r["survived"]} | {r["not_viable"]} | {r["equivalent"]} | {100*r["score"]:.1f}% |')
print()
print("Surviving mutants:")
print()
for r in rows:
    for s in r["survivors"] or []:
        print(f"- `{s}`")
PY
cat "$out/mutation.md"
if [ -z "${N:-}" ]; then
  cp "$out/mutation.md" bench/results/mutation.md
fi
