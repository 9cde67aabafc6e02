#!/usr/bin/env bash
# Issue 13 item 6: `kvgate audit` against `git log -p` over the same commits (whole processes,
# medians), at 2,000 and 20,000 commits, and the same range split in N shards (each shard a process,
# as each CI matrix job would run it). Asserts nothing: prints one JSON line per measurement.
#   RUNS (default 5)  SHAPES (default "10000:2000 1000:20000" as files:commits)  SHARDS (default 4)
# Up to 2,000 commits the repo is the fleet bench repo (a commit per process); longer histories are
# written by one `git fast-import` (bench/lib/make-history.mjs), which takes seconds, not an hour.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
runs=${RUNS:-5}
shards=${SHARDS:-4}
work=$(mktemp -d "${TMPDIR:-/tmp}/kvgate-audit.XXXXXX")
trap 'rm -rf "$work"' EXIT
(cd "$root" && node build.mjs cli >/dev/null)
for shape in ${SHAPES:-10000:2000 1000:20000}; do
  files=${shape%%:*}
  commits=${shape##*:}
  repo="$work/r-$files-$commits"
  echo "making a repo of $files files and $commits commits ..." >&2
  if [ "$commits" -le 2000 ]; then
    node "$here/lib/make-fleet-repo.mjs" "$repo" "$files" "$commits" >/dev/null
  else
    node "$here/lib/make-history.mjs" "$repo" "$files" "$commits"
  fi
  first=$(git -C "$repo" rev-list --max-parents=0 HEAD)
  node "$here/lib/time.mjs" "$runs" "$repo" "audit $commits commits: git log -p (the floor)" -- git log -p --no-color "$first..HEAD"
  node "$here/lib/time.mjs" "$runs" "$repo" "audit $commits commits: kvgate audit" -- node "$root/bin/kvgate.js" audit --range "$first..HEAD" --format json
  node "$here/lib/time.mjs" "$runs" "$repo" "audit $commits commits: kvgate audit --shard 1/$shards (one matrix job)" -- node "$root/bin/kvgate.js" audit --range "$first..HEAD" --shard "1/$shards" --format json
done
