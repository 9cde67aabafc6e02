#!/usr/bin/env bash
# `kvgate plan`'s exact solver on 24 and 40 seats × 8 cards: whole-process median wall time of a node
# script that imports the esbuild-bundled solver and solves one instance (five seeds per size, RUNS
# runs each), then the median over the seeds per size. Target: < 1 s per solve, node start-up included.
# Each seed's line from PLAN_VERBOSE says whether it was proven optimal (optimal: false = the search
# budget ran out; gap_bytes = how much better the optimum could be).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
runs=${RUNS:-5}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$root" && npx esbuild src/plan/solve.ts --bundle --platform=node --format=esm --outfile="$work/solve.mjs" --log-level=warning)
summary=()
for seats in ${SIZES:-24 40}; do
  medians=()
  for seed in ${SEEDS:-1 2 3 5 8}; do
    PLAN_VERBOSE=1 node "$here/lib/plan-instance.mjs" "$work/solve.mjs" "$seed" "$seats"
    line=$(BENCH_JSON=1 node "$here/lib/time.mjs" "$runs" "$work" "plan $seats x 8 seed $seed" -- node "$here/lib/plan-instance.mjs" "$work/solve.mjs" "$seed" "$seats")
    ms=$(node -e 'const r = JSON.parse(process.argv[1]); console.log(r.median_ms)' "$line")
    printf '%-40s median %8s ms\n' "plan $seats seats x 8 cards (seed $seed)" "$ms"
    medians+=("$ms")
  done
  summary+=("$(S="$seats" node -e 'const a = process.argv.slice(1); const v = a.map(Number).sort((x, y) => x - y); console.log(`plan ${process.env.S} seats x 8 cards: median over seeds ${v[v.length >> 1]} ms (per seed: ${a.join(", ")})`)' "${medians[@]}")")
done
node "$here/lib/time.mjs" "$runs" "$work" "node -e 0 (the floor: node startup)" -- node -e 0
printf '%s\n' "${summary[@]}"
