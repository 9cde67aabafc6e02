#!/usr/bin/env bash
# `npm run bench`: every benchmark side by side with its peer, whole processes, medians of several runs,
# then one table with issue 13's targets, each marked met or NOT met. It asserts nothing (no timed
# tests; CI never runs it): run it on a quiet machine (see BENCHMARKS.md).
#   RUNS (default 11)  COMMITS (default 2000)  FILES (default 10000)
#   SCALE_FILES (default "1000 100000": the full staged check's repo sizes)
#   BIG_MB (default 50)  ALL_RUNS (default 3: `check --all` on the 100k repo)
#   AUDIT_COMMITS_LARGE (unset: the 20,000-commit audit is not measured; set it to a count to measure)
#   NODE_VERSIONS (default 24: extra Node majors, from the `node` npm package installed under bench/.node)
#   PLAN_SIZES (default "24 40 64": seats × 8 cards for the plan rows; 64 is issue 13 item 8)
#   REAL_REPO (a git repository whose last REAL_COMMITS, default 2000, are the real-history case of
#   bench/text.sh, issue 28; unset: left out)   SKIP_TEXT=1 leaves out bench/text.sh
#   BEFORE_KV (another build's bin/kvgate.js, e.g. main's before a change: its fast and full rows beside)
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
kv="$root/bin/kvgate.js"

(cd "$root" && node build.mjs cli)
# The machine is shared: the load average goes into the table, at the start and at the end.
load() { printf '{"label":"load average (%s)","load":"%s"}\n' "$1" "$(cut -d' ' -f1-3 /proc/loadavg)" >> "$out"; }
load "start"

# Node binaries for the start-up rows: the machine's, and the majors of NODE_VERSIONS (lib/node-versions.sh).
# shellcheck source=lib/node-versions.sh
. "$here/lib/node-versions.sh"

repo="$work/fleet"
echo "making a repo of $files files and $commits commits ..." >&2
node "$here/lib/make-fleet-repo.mjs" "$repo" "$files" "$commits" >/dev/null
node "$here/lib/stage-change.mjs" "$repo"
first=$(git -C "$repo" rev-list --max-parents=0 HEAD)
# The fast path's change (no fleet file) in a clone of the same repository.
docs="$work/docs"
git clone -q "$repo" "$docs"
node "$here/lib/stage-docs.mjs" "$docs"

have_gs=0
if command -v git-secrets >/dev/null 2>&1 || { [ "$(id -u)" = 0 ] && apt-get install -y -qq git-secrets >/dev/null 2>&1; }; then
  have_gs=1
  for r in "$repo" "$docs"; do
    git -C "$r" secrets --install -f >/dev/null 2>&1 || true
    git -C "$r" secrets --register-aws >/dev/null
  done
fi

t() { node "$here/lib/time.mjs" "$runs" "$1" "$2" -- "${@:3}" >> "$out"; }

echo "fast path ..." >&2
# One full run first: it records what the fast path needs of the policy (.git/kvgate/fast-path.json).
node "$kv" check --staged >/dev/null 2>&1 || true
for pair in "${nodes[@]}"; do
  major=${pair%%=*}
  bin=${pair#*=}
  (cd "$docs" && "$bin" "$kv" check --staged >/dev/null)
  t "$docs" "fast: kvgate check --staged (node $major)" "$bin" "$kv" check --staged
  if [ -n "${BEFORE_KV:-}" ]; then
    (cd "$docs" && "$bin" "$BEFORE_KV" check --staged >/dev/null 2>&1) || true
    t "$docs" "fast: kvgate before: check --staged (node $major)" "$bin" "$BEFORE_KV" check --staged
    (cd "$docs" && "$bin" "$kv" check --staged >/dev/null 2>&1) || true
  fi
  t "$docs" "fast: node -e 0 (node $major)" "$bin" -e 0
done
[ $have_gs = 1 ] && t "$docs" "fast: git secrets --pre_commit_hook" git secrets --pre_commit_hook

echo "full staged check ..." >&2
t "$repo" "full: kvgate check --staged ($files files)" node "$kv" check --staged
for pair in "${nodes[@]:1}"; do
  t "$repo" "full: kvgate check --staged ($files files, node ${pair%%=*})" "${pair#*=}" "$kv" check --staged
done
if [ -n "${BEFORE_KV:-}" ]; then
  t "$repo" "full: kvgate before: check --staged ($files files)" node "$BEFORE_KV" check --staged
fi
[ $have_gs = 1 ] && t "$repo" "full: git secrets --pre_commit_hook ($files files)" git secrets --pre_commit_hook
# Every size made first, then `sync`: writing 100,000 new files leaves the kernel flushing them for
# seconds, which the first timed runs would otherwise share the disk and a core with.
for n in ${SCALE_FILES-1000 100000}; do
  node "$here/lib/make-fleet-repo.mjs" "$work/scale-$n" "$n" >/dev/null
  node "$here/lib/stage-change.mjs" "$work/scale-$n"
done
sync
for n in ${SCALE_FILES-1000 100000}; do
  t "$work/scale-$n" "full: kvgate check --staged ($n files)" node "$kv" check --staged
done

echo "audit ..." >&2
audit_runs=$(( runs < 5 ? runs : 5 ))
node "$here/lib/time.mjs" "$audit_runs" "$repo" "audit: git log -p ($commits commits)" -- git log -p --no-color "$first..HEAD" >> "$out"
node "$here/lib/time.mjs" "$audit_runs" "$repo" "audit: kvgate audit ($commits commits)" -- node "$kv" audit --range "$first..HEAD" --format json >> "$out"
[ $have_gs = 1 ] && node "$here/lib/time.mjs" "$audit_runs" "$repo" "audit: git secrets --scan-history ($commits commits)" -- git secrets --scan-history >> "$out"
if [ -n "${AUDIT_COMMITS_LARGE:-}" ]; then
  big="$work/audit-large"
  node "$here/lib/make-fleet-repo.mjs" "$big" 1000 "$AUDIT_COMMITS_LARGE" >/dev/null
  bfirst=$(git -C "$big" rev-list --max-parents=0 HEAD)
  node "$here/lib/time.mjs" 3 "$big" "audit: git log -p ($AUDIT_COMMITS_LARGE commits)" -- git log -p --no-color "$bfirst..HEAD" >> "$out"
  node "$here/lib/time.mjs" 3 "$big" "audit: kvgate audit ($AUDIT_COMMITS_LARGE commits)" -- node "$kv" audit --range "$bfirst..HEAD" --format json >> "$out"
fi

echo "big file and --all ..." >&2
bigrepo="$work/scale-1000"
[ -d "$bigrepo" ] || { node "$here/lib/make-fleet-repo.mjs" "$bigrepo" 1000 >/dev/null; }
git -C "$bigrepo" reset -q
node "$here/lib/stage-big-file.mjs" "$bigrepo" "${BIG_MB:-50}"
(cd "$bigrepo" && node "$here/lib/rss.mjs" 3 "rss: kvgate check --staged (${BIG_MB:-50} MB file)" -- node "$kv" check --staged) >> "$out" || true
allrepo="$work/scale-100000"
if [ -d "$allrepo" ]; then
  (cd "$allrepo" && node "$here/lib/rss.mjs" "${ALL_RUNS:-3}" "rss: kvgate check --all (100000 files)" -- node "$kv" check --all) >> "$out" || true
fi

if [ -f "$here/plan.sh" ] && [ -z "${SKIP_PLAN:-}" ]; then
  echo "plan ..." >&2
  (cd "$root" && ./node_modules/.bin/esbuild src/plan/solve.ts --bundle --platform=node --format=esm --outfile="$work/solve.mjs" --log-level=warning)
  for size in ${PLAN_SIZES:-24 40 64}; do
    for seed in 1 2 3; do
      node "$here/lib/time.mjs" 5 "$work" "plan: ${size} seats x 8 cards (seed $seed)" -- node "$here/lib/plan-instance.mjs" "$work/solve.mjs" "$seed" "$size" >> "$out"
    done
  done
fi

echo "compose ..." >&2
RUNS=$(( runs < 5 ? runs : 5 )) bash "$here/compose.sh" >> "$out"

echo "commit ..." >&2
COMMIT_BENCH_JSON=1 RUNS=$runs FILES=$files bash "$here/commit.sh" >> "$out"

if [ -z "${SKIP_TEXT:-}" ]; then
  echo "text (real history, code-like) ..." >&2
  bash "$here/text.sh" >> "$out"
fi
load "end"

node "$here/lib/table.mjs" "$out" "$files" "$commits"
