#!/usr/bin/env bash
# Issue 28's bench on real text, side by side with git and AWS git-secrets in the same run (whole
# processes, medians): the audit of a real repository's history and of a synthetic one whose lines
# look like code (dots, links, assignments: bench/lib/make-code-repo.mjs), a 50 MB staged file of
# such lines, and `check --all` over a code-like tree. Prints JSON lines (bench/run.sh makes the
# table); asserts nothing.
#   REAL_REPO       a git repository (a bare mirror is fine): its last N commits are the real history;
#                   unset: those rows are left out (BENCHMARKS.md names the one measured and its commit)
#   REAL_COMMITS    (default 2000) and AUDIT_COMMITS_LARGE (unset: not measured) the history lengths;
#   REAL_REPO_LARGE the repository for AUDIT_COMMITS_LARGE (default REAL_REPO; it needs that many commits)
#   BEFORE_KV       another build's bin/kvgate.js (e.g. main's, before a change): its rows beside these
#   CODE_COMMITS    (default 2000) the synthetic history, and AUDIT_COMMITS_LARGE again
#   BIG_MB (default 50)   CODE_ALL_FILES (default 100000)   ALL_RUNS (default 3)   AUDIT_RUNS (default 3)
#   TEXT_PARTS (default "audit big all") which parts run: the audits, the big staged file, check --all
# Each history of N commits is its own clone (`git clone --depth N`), so git log -p, kvgate audit and
# git secrets --scan-history (which scans the whole history) all read the same N commits. A history
# of merges (git/git) holds far more than N commits at depth N: there the range is the first-parent
# ancestor with N commits since it, and git-secrets (which reads every commit) is left out.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/kvgate-text.XXXXXX")
trap 'rm -rf "$work"' EXIT
kv="$root/bin/kvgate.js"
runs=${AUDIT_RUNS:-3}
export BENCH_JSON=1
[ -f "$root/dist/cli.cjs" ] || (cd "$root" && node build.mjs cli)
load() { printf '{"label":"load average (%s)","load":"%s"}\n' "$1" "$(cut -d' ' -f1-3 /proc/loadavg)"; }
load "text bench start"

have_gs=0
if command -v git-secrets >/dev/null 2>&1 || { [ "$(id -u)" = 0 ] && apt-get install -y -qq git-secrets >/dev/null 2>&1; }; then have_gs=1; fi

parts=" ${TEXT_PARTS:-audit big all} "
has() { [[ "$parts" == *" $1 "* ]]; }

# The base of a range of N commits in the clone: its root, or (a history of merges holding more) the
# first-parent ancestor with N commits since it. Prints "base whole" (whole: 1 when the range is the clone).
range_base() {
  local clone=$1 n=$2 first lo hi mid
  first=$(git -C "$clone" rev-list --max-parents=0 HEAD | tail -1)
  if [ "$(git -C "$clone" rev-list --count "$first..HEAD")" -le $((n + n / 10)) ]; then
    echo "$first 1"
    return
  fi
  mapfile -t fp < <(git -C "$clone" rev-list --first-parent HEAD)
  lo=1 hi=$((${#fp[@]} - 1))
  while [ $((hi - lo)) -gt 1 ]; do
    mid=$(((lo + hi) / 2))
    if [ "$(git -C "$clone" rev-list --count "${fp[$mid]}..HEAD")" -lt "$n" ]; then lo=$mid; else hi=$mid; fi
  done
  echo "${fp[$hi]} 0"
}

# One history: git log -p, kvgate audit (each build interleaved) and git-secrets over the same commits.
audit_rows() {
  local kind=$1 clone=$2 n=$3 first count whole
  read -r first whole < <(range_base "$clone" "$n")
  count=$(git -C "$clone" rev-list --count "$first..HEAD")
  printf '{"label":"%s history of %s commits","range":"%s..HEAD","commits":%s}\n' "$kind" "$n" "$first" "$count"
  echo "$kind: $count commits ..." >&2
  # git log -p and each build's audit round-robin, so a load that comes and goes falls on all alike.
  local before=()
  if [ -n "${BEFORE_KV:-}" ]; then
    before=(--- "text: kvgate audit before ($kind, $n commits)" -- node "$BEFORE_KV" audit --range "$first..HEAD" --format json)
  fi
  node "$here/lib/interleave.mjs" "$runs" "$clone" \
    "text: git log -p ($kind, $n commits)" -- git log -p --no-color "$first..HEAD" \
    --- "text: kvgate audit ($kind, $n commits)" -- node "$kv" audit --range "$first..HEAD" --format json "${before[@]}"
  if [ $have_gs = 1 ] && [ "$whole" = 1 ]; then
    git -C "$clone" secrets --register-aws >/dev/null
    node "$here/lib/time.mjs" "$runs" "$clone" "text: git secrets --scan-history ($kind, $n commits)" -- git secrets --scan-history
  fi
}

real_rows() {
  local src=$1 n=$2 clone="$work/real-$2"
  printf '{"label":"real history (%s commits)","repo":"%s","head":"%s"}\n' "$n" "$src" "$(git -C "$src" rev-parse HEAD)"
  git clone -q --no-checkout --single-branch --depth "$n" "file://$(cd "$src" && pwd)" "$clone"
  audit_rows real "$clone" "$n"
  rm -rf "$clone"
}
if [ -n "${REAL_REPO:-}" ] && has audit; then
  real_rows "$REAL_REPO" "${REAL_COMMITS:-2000}"
  if [ -n "${AUDIT_COMMITS_LARGE:-}" ]; then real_rows "${REAL_REPO_LARGE:-$REAL_REPO}" "$AUDIT_COMMITS_LARGE"; fi
fi

for n in $(has audit && echo "${CODE_COMMITS:-2000} ${AUDIT_COMMITS_LARGE:-}"); do
  repo="$work/code-$n"
  node "$here/lib/make-code-repo.mjs" "$repo" 1000 "$n"
  audit_rows code-like "$repo" "$n"
  rm -rf "$repo"
done

# A big staged file of code-like lines, and the same hook's peers on it.
if has big; then
big="$work/big"
node "$here/lib/make-code-repo.mjs" "$big" 100 1 >/dev/null
node "$here/lib/make-code-repo.mjs" --file "$big/big.js" "${BIG_MB:-50}"
git -C "$big" add big.js
(cd "$big" && node "$here/lib/rss.mjs" 3 "text: kvgate check --staged (${BIG_MB:-50} MB code-like file)" -- node "$kv" check --staged) || true
if [ -n "${BEFORE_KV:-}" ]; then (cd "$big" && node "$here/lib/rss.mjs" 3 "text: kvgate before: check --staged (${BIG_MB:-50} MB code-like file)" -- node "$BEFORE_KV" check --staged) || true; fi
(cd "$big" && node "$here/lib/rss.mjs" 3 "text: git diff --cached (${BIG_MB:-50} MB code-like file)" -- git diff --cached --no-color --output=/dev/null) || true
if [ $have_gs = 1 ]; then
  git -C "$big" secrets --register-aws >/dev/null
  (cd "$big" && node "$here/lib/rss.mjs" 3 "text: git secrets --pre_commit_hook (${BIG_MB:-50} MB code-like file)" -- git secrets --pre_commit_hook) || true
fi
rm -rf "$big"
fi

# check --all over a code-like tree.
if has all; then
tree="$work/tree"
node "$here/lib/make-code-repo.mjs" "$tree" "${CODE_ALL_FILES:-100000}" 1 >/dev/null
sync
(cd "$tree" && node "$here/lib/rss.mjs" "${ALL_RUNS:-3}" "text: kvgate check --all (${CODE_ALL_FILES:-100000} code-like files)" -- node "$kv" check --all) || true
if [ -n "${BEFORE_KV:-}" ]; then (cd "$tree" && node "$here/lib/rss.mjs" "${ALL_RUNS:-3}" "text: kvgate before: check --all (${CODE_ALL_FILES:-100000} code-like files)" -- node "$BEFORE_KV" check --all) || true; fi
(cd "$tree" && node "$here/lib/rss.mjs" "${ALL_RUNS:-3}" "text: git grep every file (${CODE_ALL_FILES:-100000} code-like files)" -- git grep -I -c -e kvgate-bench-no-match) || true
if [ $have_gs = 1 ]; then
  git -C "$tree" secrets --register-aws >/dev/null
  (cd "$tree" && node "$here/lib/rss.mjs" "${ALL_RUNS:-3}" "text: git secrets --scan (${CODE_ALL_FILES:-100000} code-like files)" -- git secrets --scan) || true
fi
fi
load "text bench end"
