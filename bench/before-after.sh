#!/usr/bin/env bash
# The hook's and CI's timings at an earlier commit and now, side by side in one run (issue 23's "no
# hook or CI timing regresses"). Builds the earlier commit's CLI bundle in a temporary worktree (with
# this checkout's node_modules), then times both on the same repositories, interleaved.
#   BEFORE (default: the commit before issue 23's first change, 29ea629^)  RUNS (default 11)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
before_ref=${BEFORE:-29ea629^}
runs=${RUNS:-11}
work=$(mktemp -d "${TMPDIR:-/tmp}/kvgate-ab.XXXXXX")
trap 'git -C "$root" worktree remove --force "$work/before" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
git -C "$root" worktree add -q --detach "$work/before" "$before_ref"
ln -s "$root/node_modules" "$work/before/node_modules"
(cd "$work/before" && node build.mjs >/dev/null)
(cd "$root" && node build.mjs >/dev/null)
b="$work/before/bin/kvgate.js"
a="$root/bin/kvgate.js"
echo "before: $(git -C "$root" rev-parse --short "$before_ref")  after: $(git -C "$root" rev-parse --short HEAD)  runs: $runs"
repo="$work/fleet"
node "$here/lib/make-fleet-repo.mjs" "$repo" 5000 >/dev/null
cp -a "$repo" "$work/fleet-before"
rb="$work/fleet-before"
node "$here/lib/ab.mjs" "$runs" "$rb" "$repo" "check --staged (5 env staged, 5k files)" "$b" "$a" -- check --staged
node "$here/lib/ab.mjs" "$runs" "$rb" "$repo" "check --all (5k files)" "$b" "$a" -- check --all
node "$here/lib/ab.mjs" "$runs" "$root" "$root" "check --all --repo examples/fleet" "$b" "$a" -- check --all --repo examples/fleet
node "$here/lib/ab.mjs" "$runs" "$root" "$root" "explain --repo examples/fleet" "$b" "$a" -- explain --repo examples/fleet
# A docs-only commit: what the fast path is for.
for r in "$rb" "$repo"; do
  git -C "$r" commit -q -m staged
  echo "more" >> "$r/src/mod0/file1.ts" && git -C "$r" add -A
done
node "$here/lib/ab.mjs" "$runs" "$rb" "$repo" "check --staged (one code file staged)" "$b" "$a" -- check --staged
node "$here/lib/ab.mjs" "$runs" "$rb" "$repo" "check --range HEAD~1..HEAD (the Action's range)" "$b" "$a" -- check --range HEAD~1..HEAD
