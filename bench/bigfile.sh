#!/usr/bin/env bash
# Issue 13 item 5 / issue 15 item 3: a 50 MB staged text file with 20 planted AWS keys, scanned by
# `kvgate check --staged` (streamed). Prints wall time (median), peak RSS of the whole process tree
# (GNU time: the largest of node and its git children) and of kvgate's own node process, the found
# count (target 20/20), `git diff --cached` alone (what git's patch of it costs) and `git cat-file`
# of its blob (the floor: what kvgate reads instead).
#   RUNS (default 5)  MB (default 50)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
runs=${RUNS:-5}
mb=${MB:-50}
work=$(mktemp -d "${TMPDIR:-/tmp}/kvgate-bigfile.XXXXXX")
trap 'rm -rf "$work"' EXIT
(cd "$root" && node build.mjs cli >/dev/null)
repo="$work/repo"
mkdir -p "$repo/data"
git -C "$repo" init -q
git -C "$repo" -c user.name=b -c user.email=b@b commit -q --allow-empty -m init
planted=$(node "$here/lib/big-file.mjs" "$repo/data/dump.txt" "$mb" 20)
git -C "$repo" add data
echo "staged $(stat -c %s "$repo/data/dump.txt") bytes, 20 keys at lines $planted" >&2

# kvgate's own node process: its maximum RSS, read at exit (GNU time reports git's too).
self="$work/self-rss.cjs"
echo 'process.on("exit",()=>process.stderr.write("self-rss-kib "+process.resourceUsage().maxRSS+"\n"))' > "$self"
found=$(cd "$repo" && node "$root/bin/kvgate.js" check --staged --format json | node -e '
  let s = ""; process.stdin.on("data", (c) => (s += c)).on("end", () => {
    const r = JSON.parse(s); console.log(r.findings.filter((f) => f.rule === "secret/aws-access-key-id" && f.status === "open").length);
  });') || true
own=$(cd "$repo" && NODE_OPTIONS="--require $self" node "$root/bin/kvgate.js" check --staged --format json 2>&1 >/dev/null | sed -n "s/^self-rss-kib //p") || true
echo "found: $found/20 planted keys; kvgate's own process peak RSS: $(( own / 1024 )) MiB" >&2
(cd "$repo" && node "$here/lib/rss.mjs" "$runs" "kvgate check --staged (${mb} MB file)" -- node "$root/bin/kvgate.js" check --staged --format json)
(cd "$repo" && node "$here/lib/rss.mjs" "$runs" "git diff --cached -p -U0 (what git's own patch costs)" -- git diff --cached --raw -p -z -U0 --no-color)
# What kvgate asks of git for a big added file instead (src/git/bigfiles.ts): its blob, streamed.
(cd "$repo" && node "$here/lib/rss.mjs" "$runs" "git cat-file blob (the floor)" -- git cat-file blob :data/dump.txt)
