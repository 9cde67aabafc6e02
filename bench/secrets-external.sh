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

# shellcheck source=lib/secret-tools.sh
. "$here/lib/secret-tools.sh"

(cd "$root" && node build.mjs cli)
tree="$out/tree"
node "$here/secrets/external/build-corpus.mjs" "$tree"
mv "$tree/labels.json" "$out/labels.json"
git -C "$tree" init -q -b main
git -C "$tree" -c user.name=bench -c user.email=bench@example.com add -A
git -C "$tree" -c user.name=bench -c user.email=bench@example.com commit -q --no-verify -m corpus

runs=()
run_kvgate "${RUNS:-3}"
node "$root/bin/kvgate.js" check --all --repo "$tree" --format text > "$work/kvgate.txt" || true
node "$root/bin/kvgate.js" check --all --repo "$tree" --format sarif > "$work/kvgate.sarif" || true
node "$root/bin/kvgate.js" check --all --repo "$tree" --format github > "$work/kvgate.github" || true

run_gitleaks
run_secretlint

echo
node "$here/secrets/external/score.mjs" "$out/labels.json" "$tree" "${runs[@]}"
if [ -n "${KEEP:-}" ]; then cp "$work"/kvgate.json "$work"/gitleaks.json "$work"/secretlint.json "$out/" 2>/dev/null || true; fi
echo
node "$here/secrets/external/leaks.mjs" "$out/labels.json" "$tree" "$work/kvgate.json" "$work/kvgate.txt" "$work/kvgate.sarif" "$work/kvgate.github"
