#!/usr/bin/env bash
# `kvgate plan`'s exact solver on 24 seats × 8 cards: whole-process median wall time of a node script
# that imports the esbuild-bundled solver and solves one instance (several instances, several runs
# each). Target: < 1 s per solve, node start-up included.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
runs=${RUNS:-7}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$root" && npx esbuild src/plan/solve.ts --bundle --platform=node --format=esm --outfile="$work/solve.mjs" --log-level=warning)
for seed in ${SEEDS:-1 2 3 5 8}; do
  PLAN_VERBOSE=1 node "$here/lib/plan-instance.mjs" "$work/solve.mjs" "$seed"
  node "$here/lib/time.mjs" "$runs" "$work" "plan 24 seats x 8 cards (seed $seed)" -- node "$here/lib/plan-instance.mjs" "$work/solve.mjs" "$seed"
done
node "$here/lib/time.mjs" "$runs" "$work" "node -e 0 (the floor: node startup)" -- node -e 0
