#!/usr/bin/env bash
# Issue 28's hook targets on their own, without the rest of `npm run bench`: the fast path (a docs-only
# commit) and the full staged check (5 env files, 1 playbook and 20 other files staged in a 10,000-file
# repository: bench/lib/stage-change.mjs), on Node 20 and the majors of NODE_VERSIONS (default 24, from
# the `node` package under bench/.node, as bench/run.sh installs it), beside AWS git-secrets' hook and
# `node -e 0`, all round-robin in one run (bench/lib/round-robin.mjs: wall and CPU medians), the load
# average printed at the start and the end. OTHER_KV="name=<bin/kvgate.js> ..." adds other builds'
# rows (each in its own copies of the repositories: the fast path's key is a build's own).
#   RUNS (default 11)  FILES (default 10000)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
runs=${RUNS:-11}
files=${FILES:-10000}
work=$(mktemp -d "${TMPDIR:-/tmp}/kvgate-hook-rows.XXXXXX")
trap 'rm -rf "$work"' EXIT
(cd "$root" && node build.mjs cli >/dev/null)

# shellcheck source=lib/node-versions.sh
. "$here/lib/node-versions.sh"
builds=("this=$root/bin/kvgate.js")
for b in ${OTHER_KV:-}; do builds+=("$b"); done

node "$here/lib/make-fleet-repo.mjs" "$work/fleet" "$files" >/dev/null
node "$here/lib/stage-change.mjs" "$work/fleet"
git clone -q "$work/fleet" "$work/docs"
node "$here/lib/stage-docs.mjs" "$work/docs"
# git may still be packing the new repositories in the background (auto gc): copied only once it is done.
for r in fleet docs; do
  git -C "$work/$r" config gc.auto 0
  while [ -e "$work/$r/.git/gc.pid" ]; do sleep 0.2; done
done
have_gs=0
command -v git-secrets >/dev/null 2>&1 && have_gs=1
rows="["
add() { rows+="$([ "$rows" = "[" ] || echo ,){\"label\":\"$1\",\"cwd\":\"$2\",\"cmd\":$3}"; }
for i in "${!builds[@]}"; do
  name=${builds[$i]%%=*}
  bin=${builds[$i]#*=}
  for r in fleet docs; do
    cp -a "$work/$r" "$work/$r-$i"
    [ $have_gs = 1 ] && { git -C "$work/$r-$i" secrets --install -f >/dev/null 2>&1 || true; git -C "$work/$r-$i" secrets --register-aws >/dev/null; }
    # One full run records what the fast path needs of the policy (.git/kvgate/fast-path.json).
    (cd "$work/$r-$i" && node "$bin" check --staged >/dev/null 2>&1) || true
  done
  for pair in "${nodes[@]}"; do
    add "fast: kvgate $name check --staged (node ${pair%%=*})" "$work/docs-$i" "[\"${pair#*=}\",\"$bin\",\"check\",\"--staged\"]"
    add "full: kvgate $name check --staged ($files files, node ${pair%%=*})" "$work/fleet-$i" "[\"${pair#*=}\",\"$bin\",\"check\",\"--staged\"]"
  done
done
for pair in "${nodes[@]}"; do add "node -e 0 (node ${pair%%=*})" "$work/docs-0" "[\"${pair#*=}\",\"-e\",\"0\"]"; done
if [ $have_gs = 1 ]; then
  add "git secrets --pre_commit_hook (docs change)" "$work/docs-0" '["git","secrets","--pre_commit_hook"]'
  add "git secrets --pre_commit_hook (the full change)" "$work/fleet-0" '["git","secrets","--pre_commit_hook"]'
fi
echo "$rows]" > "$work/rows.json"
echo "load average at the start: $(cut -d' ' -f1-3 /proc/loadavg)"
node "$here/lib/round-robin.mjs" "$runs" "$work/rows.json"
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
