#!/usr/bin/env bash
# `kvgate plan`'s proof on the shapes of issue 13 item 8 (bench/lib/plan-shapes.mjs): 64 seats × 8 cards
# of random sizes (target: proven within 3 s, node start-up included) and 37–61 nearly equal seats × 8
# cards. Whole processes: a node script imports the esbuild-bundled solver and solves one instance;
# median of RUNS runs per seed after one warm-up. Each seed's PLAN_VERBOSE line says whether it was
# proven (to the 1 MiB grain) and, if not, the gap in GiB. Prints figures; asserts nothing.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
runs=${RUNS:-3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$root" && ./node_modules/.bin/esbuild src/plan/solve.ts --bundle --platform=node --format=esm --outfile="$work/solve.mjs" --log-level=warning)
summary=()
for case in ${CASES:-random:64 equal:37 equal:49 equal:61}; do
  shape=${case%%:*}
  seats=${case##*:}
  medians=()
  proven=0
  total=0
  for seed in ${SEEDS:-1 2 3 4 5}; do
    info=$(PLAN_VERBOSE=1 node "$here/lib/plan-shapes.mjs" "$work/solve.mjs" "$shape" "$seed" "$seats")
    echo "$info"
    total=$((total + 1))
    if [[ $info == *'"optimal":true'* ]]; then proven=$((proven + 1)); fi
    line=$(BENCH_JSON=1 node "$here/lib/time.mjs" "$runs" "$work" "plan $shape $seats x 8 seed $seed" -- node "$here/lib/plan-shapes.mjs" "$work/solve.mjs" "$shape" "$seed" "$seats")
    medians+=("$(node -e 'console.log(JSON.parse(process.argv[1]).median_ms)' "$line")")
  done
  summary+=("$(L="plan $shape $seats seats x 8 cards: $proven of $total seeds proven" node -e 'const a = process.argv.slice(1).map(Number); const v = [...a].sort((x, y) => x - y); console.log(`${process.env.L}; whole process median ${v[v.length >> 1]} ms, max ${v[v.length - 1]} ms (per seed: ${a.join(", ")})`)' "${medians[@]}")")
done
node "$here/lib/time.mjs" "$runs" "$work" "node -e 0 (the floor: node startup)" -- node -e 0
printf '%s\n' "${summary[@]}"
