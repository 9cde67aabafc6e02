#!/usr/bin/env bash
# The pre-commit hook's cost: median wall time of `kvgate check --staged` for 5 staged env files
# in a repo of 5,000 files (whole process, several runs). Target: <= 150 ms on 2 cores.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
runs=${RUNS:-15}
[ -f "$root/dist/cli.cjs" ] || (cd "$root" && npm run --silent bundle)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
repo="$work/fleet"
node "$here/lib/make-fleet-repo.mjs" "$repo" 5000 >/dev/null
node "$here/lib/time.mjs" "$runs" "$repo" "kvgate check --staged (5 env, 5k files)" -- node "$root/bin/kvgate.js" check --staged
node "$here/lib/time.mjs" "$runs" "$repo" "node -e 0 (the floor: node startup)" -- node -e 0
node "$here/lib/time.mjs" "$runs" "$repo" "git diff --cached --stat (git alone)" -- git diff --cached --stat
