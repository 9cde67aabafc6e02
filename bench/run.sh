#!/usr/bin/env bash
# `npm run bench`: every benchmark side by side with its peer, whole processes, medians of several runs,
# then one table. The machine's load matters: run it on a quiet machine (see BENCHMARKS.md).
#   RUNS (default 11)  COMMITS (default 2000)  FILES (default 10000)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
runs=${RUNS:-11}
commits=${COMMITS:-2000}
files=${FILES:-10000}
work=$(mktemp -d "${TMPDIR:-/tmp}/kvgate-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
out="$work/results.jsonl"
export BENCH_JSON=1

(cd "$root" && node build.mjs cli)
repo="$work/fleet"
echo "making a repo of $files files and $commits commits ..." >&2
node "$here/lib/make-fleet-repo.mjs" "$repo" "$files" "$commits" >/dev/null
node "$here/lib/stage-change.mjs" "$repo"
first=$(git -C "$repo" rev-list --max-parents=0 HEAD)

# Peers: AWS git-secrets (Debian package) and secretlint (npm, recommended preset) in the temp folder.
have_gs=0
if command -v git-secrets >/dev/null 2>&1 || { [ "$(id -u)" = 0 ] && apt-get install -y -qq git-secrets >/dev/null 2>&1; }; then
  have_gs=1
  git -C "$repo" secrets --install -f >/dev/null 2>&1 || true
  git -C "$repo" secrets --register-aws >/dev/null
fi
have_sl=0
if npm install --silent --no-audit --no-fund --prefix "$work/sl" secretlint@13 @secretlint/secretlint-rule-preset-recommend@13 >/dev/null 2>&1; then
  have_sl=1
  echo '{"rules":[{"id":"@secretlint/secretlint-rule-preset-recommend"}]}' > "$work/.secretlintrc.json"
fi
staged=$(git -C "$repo" diff --cached --name-only | tr '\n' ' ')

t() { node "$here/lib/time.mjs" "$runs" "$1" "$2" -- "${@:3}" >> "$out"; }

echo "hook ..." >&2
t "$repo" "hook: kvgate check --staged" node "$root/bin/kvgate.js" check --staged
[ $have_gs = 1 ] && t "$repo" "hook: git secrets --pre_commit_hook" git secrets --pre_commit_hook
# shellcheck disable=SC2086
[ $have_sl = 1 ] && t "$repo" "hook: secretlint (staged files)" "$work/sl/node_modules/.bin/secretlint" --secretlintrc "$work/.secretlintrc.json" $staged
t "$repo" "hook: node -e 0 (startup floor)" node -e 0

echo "audit ..." >&2
audit_runs=$(( runs < 5 ? runs : 5 ))
node "$here/lib/time.mjs" "$audit_runs" "$repo" "audit: git log -p (the floor)" -- git log -p --no-color "$first..HEAD" >> "$out"
node "$here/lib/time.mjs" "$audit_runs" "$repo" "audit: kvgate audit" -- node "$root/bin/kvgate.js" audit --range "$first..HEAD" --format json >> "$out"
[ $have_gs = 1 ] && node "$here/lib/time.mjs" "$audit_runs" "$repo" "audit: git secrets --scan-history" -- git secrets --scan-history >> "$out"

echo "plan ..." >&2
(cd "$root" && ./node_modules/.bin/esbuild src/plan/solve.ts --bundle --platform=node --format=esm --outfile="$work/solve.mjs" --log-level=warning)
for size in ${PLAN_SIZES:-24 40}; do
  for seed in 1 2 3; do
    node "$here/lib/time.mjs" 5 "$work" "plan: ${size} seats x 8 cards (seed $seed)" -- node "$here/lib/plan-instance.mjs" "$work/solve.mjs" "$seed" "$size" >> "$out"
  done
done

echo "commit ..." >&2
COMMIT_BENCH_JSON=1 RUNS=$runs FILES=$files bash "$here/commit.sh" >> "$out"

node "$here/lib/table.mjs" "$out"
