#!/usr/bin/env bash
# The hook's and CI's timings at an earlier commit and now, side by side in one run (issue 23's "no
# hook or CI timing regresses"). Builds each earlier commit's CLI bundle in a temporary worktree (with
# this checkout's node_modules), then times them and this checkout on the same repositories,
# interleaved: wall and CPU medians, the load average printed at the start and the end.
#   BEFORE (default: the commit before issue 23's first change, 29ea629^)
#   ALSO (more commits to time between BEFORE and this checkout, e.g. "main")   RUNS (default 11)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
refs=("${BEFORE:-29ea629^}")
for r in ${ALSO:-}; do refs+=("$r"); done
runs=${RUNS:-11}
work=$(mktemp -d "${TMPDIR:-/tmp}/kvgate-ab.XXXXXX")
cleanup() {
  for i in "${!refs[@]}"; do git -C "$root" worktree remove --force "$work/build$i" >/dev/null 2>&1 || true; done
  rm -rf "$work"
}
trap cleanup EXIT
names=()
bins=()
for i in "${!refs[@]}"; do
  git -C "$root" worktree add -q --detach "$work/build$i" "${refs[$i]}"
  ln -s "$root/node_modules" "$work/build$i/node_modules"
  (cd "$work/build$i" && node build.mjs >/dev/null)
  names+=("$(git -C "$root" rev-parse --short "${refs[$i]}")")
  bins+=("$work/build$i/bin/kvgate.js")
done
(cd "$root" && node build.mjs >/dev/null)
names+=("this")
bins+=("$root/bin/kvgate.js")
echo "builds: ${names[*]} (this: $(git -C "$root" rev-parse --short HEAD)$(git -C "$root" diff --quiet HEAD -- src bin || echo ' with changes'))  runs: $runs"
echo "load average at the start: $(cut -d' ' -f1-3 /proc/loadavg)"
# Each build its own copy of the repository (see lib/ab.mjs).
node "$here/lib/make-fleet-repo.mjs" "$work/fleet" 5000 >/dev/null
for i in "${!names[@]}"; do cp -a "$work/fleet" "$work/fleet$i"; done
ab() {
  local label=$1 where=$2
  shift 2
  local sides=()
  for i in "${!names[@]}"; do
    local cwd="$work/fleet$i"
    [ "$where" = root ] && cwd=$root
    sides+=("${names[$i]}=${bins[$i]}@$cwd")
  done
  node "$here/lib/ab.mjs" "$runs" "$label" "${sides[@]}" -- "$@"
}
ab "check --staged (5 env staged, 5k files)" fleet check --staged
ab "check --all (5k files)" fleet check --all
ab "check --all --repo examples/fleet" root check --all --repo examples/fleet
ab "explain --repo examples/fleet" root explain --repo examples/fleet
# A docs-only commit: what the fast path is for.
for i in "${!names[@]}"; do
  r="$work/fleet$i"
  git -C "$r" commit -q -m staged
  echo "more" >> "$r/src/mod0/file1.ts" && git -C "$r" add -A
done
ab "check --staged (one code file staged)" fleet check --staged
ab "check --range HEAD~1..HEAD (the Action's range)" fleet check --range HEAD~1..HEAD
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
