#!/usr/bin/env bash
# A real `git commit` (one env file edited) on a 10,000-file fleet repository, with each set of hooks
# in the same run, round-robin: none; AWS git-secrets' (Debian package, `--install` + `--register-aws`);
# kvgate's hooks as an earlier `kvgate init` wrote them (`npx --no-install kvgate`, the "before");
# and the hooks `kvgate init` installs now (bin/kvgate-hook naming the installed binary), both the
# plain-git ones and husky's. kvgate is installed into the repository from `npm pack`'s tarball, as
# a user installs it. Medians of RUNS (default 11) after one warm-up. Prints a table, or JSON lines
# with BENCH_JSON=1 (bench/run.sh).   FILES (default 10000)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
runs=${RUNS:-11}
files=${FILES:-10000}
work=$(mktemp -d "${TMPDIR:-/tmp}/kvgate-bench-commit.XXXXXX")
trap 'rm -rf "$work"' EXIT
out="$work/results.jsonl"

[ -f "$root/dist/cli.cjs" ] || (cd "$root" && node build.mjs cli)
repo="$work/fleet"
node "$here/lib/make-fleet-repo.mjs" "$repo" "$files" >/dev/null
git -C "$repo" reset -q --hard
git -C "$repo" config user.name bench
git -C "$repo" config user.email bench@example.com
printf 'node_modules/\n.husky/_/\n' > "$repo/.gitignore"
printf '{ "name": "fleet", "private": true }\n' > "$repo/package.json"
git -C "$repo" add .gitignore package.json
git -C "$repo" commit -q --no-verify -m "package.json"
(cd "$root" && npm pack --silent --pack-destination "$work" >/dev/null)
(cd "$repo" && npm install -D --offline --no-audit --no-fund --loglevel=error "$work"/kvgate-*.tgz >/dev/null)

# Each set of hooks in its own folder; commit-time.mjs points core.hooksPath at each in turn.
mkdir -p "$work/none"
have_gs=0
if command -v git-secrets >/dev/null 2>&1 || { [ "$(id -u)" = 0 ] && apt-get install -y -qq git-secrets >/dev/null 2>&1; }; then
  have_gs=1
  git -C "$repo" secrets --install -f "$work/gs" >/dev/null
  git -C "$repo" secrets --register-aws >/dev/null
fi
mkdir -p "$work/npx"
printf '#!/usr/bin/env sh\n[ "${HUSKY-}" = "0" ] || ${KVGATE_BIN:-npx --no-install kvgate} check --staged || exit $?\n' > "$work/npx/pre-commit"
printf '#!/usr/bin/env sh\n[ "${HUSKY-}" = "0" ] || ${KVGATE_BIN:-npx --no-install kvgate} hook prepare-commit-msg "$@" || exit $?\n' > "$work/npx/prepare-commit-msg"
chmod +x "$work/npx/"*
(cd "$repo" && npx --no-install kvgate init >/dev/null)   # plain git: .git/hooks
cp -r "$root/node_modules/husky" "$repo/node_modules/husky"
mkdir -p "$repo/.husky"
printf '[ "${HUSKY-}" = "0" ] || sh node_modules/kvgate/bin/kvgate-hook check --staged || exit $?\n' > "$repo/.husky/pre-commit"
printf '[ "${HUSKY-}" = "0" ] || sh node_modules/kvgate/bin/kvgate-hook hook prepare-commit-msg "$@" || exit $?\n' > "$repo/.husky/prepare-commit-msg"
(cd "$repo" && node node_modules/husky/bin.js >/dev/null)

sets=("commit: no hooks=$work/none")
[ $have_gs = 1 ] && sets+=("commit: git-secrets' hooks=$work/gs/hooks")
sets+=("commit: kvgate hooks via npx (before)=$work/npx" "commit: kvgate init's hooks, plain git=$repo/.git/hooks" "commit: kvgate init's hooks, husky=.husky/_")
export BENCH_JSON=1
node "$here/lib/commit-time.mjs" "$runs" "$repo" "${sets[@]}" >> "$out"
unset BENCH_JSON

if [ -n "${COMMIT_BENCH_JSON:-}" ]; then cat "$out"; exit 0; fi
node -e '
  const rows = require("fs").readFileSync(process.argv[1], "utf8").trim().split("\n").map((l) => JSON.parse(l));
  const pad = (s, n) => String(s).padEnd(n);
  console.log(`${pad("a real git commit (" + process.argv[2] + " files)", 46)} ${pad("median ms", 10)} ${pad("min", 8)} ${pad("max", 8)} trailer`);
  for (const r of rows) console.log(`${pad(r.label, 46)} ${pad(r.median_ms, 10)} ${pad(r.min_ms, 8)} ${pad(r.max_ms, 8)} ${r.trailer ?? ""}`);
  const gs = rows.find((r) => r.label.includes("git-secrets"));
  for (const r of rows.filter((r) => r.label.includes("init"))) if (gs) console.log(`target ${r.label.replace("commit: ", "")} <= 2x git-secrets: ${(r.median_ms / gs.median_ms).toFixed(2)}x - ${r.median_ms <= 2 * gs.median_ms ? "met" : "NOT met"}`);
' "$out" "$files"
