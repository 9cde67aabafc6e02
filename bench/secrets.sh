#!/usr/bin/env bash
# kvgate's secret scanner side by side with AWS git-secrets and secretlint on one generated corpus
# (a history with planted fake keys and the known placeholders). Prints a table of what each finds
# and misses of the planted set, and its wall time. Every value is generated; no output shows one.
# Usage: bash bench/secrets.sh [commits]   (default 1000)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
commits="${1:-1000}"
work="$(mktemp -d "${TMPDIR:-/tmp}/kvgate-bench-secrets.XXXXXX")"
trap 'rm -rf "$work"' EXIT

now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }

[ -f "$root/dist/cli.js" ] || (cd "$root" && node build.mjs cli)
node "$here/secrets/corpus.mjs" "$work/repo" "$commits"
repo="$work/repo"
first="$(git -C "$repo" rev-list --max-parents=0 HEAD)"

# kvgate: the tree (--all) and the history (each commit of the range, the root's files via --all).
t0=$(now); node "$root/bin/kvgate.js" check --all --repo "$repo" --format json > "$work/kvgate-all.json" || true; t1=$(now)
kv_all=$(elapsed "$t0" "$t1")
t0=$(now); node "$root/bin/kvgate.js" check --range "$first..HEAD" --repo "$repo" --format json > "$work/kvgate-range.json" || true; t1=$(now)
kv_range=$(elapsed "$t0" "$t1")

# AWS git-secrets (Debian package), AWS provider, over the whole history.
runs=()
if ! command -v git-secrets >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then apt-get install -y -qq git-secrets >/dev/null 2>&1 || true; fi
fi
if command -v git-secrets >/dev/null 2>&1; then
  git -C "$repo" secrets --register-aws >/dev/null
  t0=$(now); (cd "$repo" && git secrets --scan-history > "$work/git-secrets.txt" 2>&1) || true; t1=$(now)
  runs+=("git-secrets --scan-history=git-secrets:$work/git-secrets.txt:$(elapsed "$t0" "$t1")")
else
  runs+=("git-secrets=git-secrets:$work/missing:0")
fi

# secretlint with the recommended preset, installed into the temp folder (never into the project).
if (cd "$work" && npm install --silent --no-audit --no-fund --prefix "$work/sl" secretlint@13 @secretlint/secretlint-rule-preset-recommend@13 >/dev/null 2>&1); then
  echo '{"rules":[{"id":"@secretlint/secretlint-rule-preset-recommend"}]}' > "$work/secretlintrc.json"
  t0=$(now); (cd "$repo" && "$work/sl/node_modules/.bin/secretlint" --secretlintrc "$work/secretlintrc.json" --format json "**/*" > "$work/secretlint.json" 2>/dev/null) || true; t1=$(now)
  runs+=("secretlint (recommended, tree)=secretlint:$work/secretlint.json:$(elapsed "$t0" "$t1"):$repo")
else
  runs+=("secretlint=secretlint:$work/missing:0")
fi

echo
node "$here/secrets/score.mjs" "$work/planted.json" \
  "kvgate check --all=kvgate:$work/kvgate-all.json:$kv_all" \
  "kvgate check --range (history)=kvgate:$work/kvgate-range.json:$kv_range" \
  "${runs[@]}"
