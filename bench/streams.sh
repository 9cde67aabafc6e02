#!/usr/bin/env bash
# `observe` and `usage` on the inputs that used to cost the most (issues 26 and 30), kvgate beside a
# baseline build when BASE names one (e.g. BASE=/tmp/main-cli.cjs, a dist/cli.cjs of main):
#   - observe on a 10,000,000-line nvidia-smi CSV (8 cards × 868 days of per-minute samples);
#   - usage on 2,000,000 spend-log rows as JSON lines, as CSV, and as JSON lines newest first (the
#     sorted second pass).
# Medians of RUNS (default 3) whole processes; peak RSS from GNU time. Files live in a temp folder that
# the script removes.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
runs=${RUNS:-3}
rows=${ROWS:-2000000}
work=$(mktemp -d "${TMPDIR:-/tmp}/kvgate-bench-streams.XXXXXX")
trap 'rm -rf "$work"' EXIT
out="$work/results.jsonl"
command -v /usr/bin/time >/dev/null || { echo "bench/streams.sh needs GNU time (apt-get install -y time)" >&2; exit 2; }

(cd "$root" && node build.mjs cli)
fleet="$root/examples/fleet"
t() { node "$here/lib/rss.mjs" "$@" >> "$out"; tail -1 "$out" >&2; }

echo "generating 10,000,000 nvidia-smi lines and $rows spend-log rows ..." >&2
node "$here/gen-gpu-samples.mjs" --cards 8 --days 868 --out "$work/gpu.csv"
node "$here/gen-spend-logs.mjs" --rows "$rows" --out "$work/spend.jsonl"
node "$here/gen-spend-logs.mjs" --rows "$rows" --format csv --out "$work/spend.csv"
tac "$work/spend.jsonl" > "$work/newest-first.jsonl"
cat "$work"/*.csv "$work"/*.jsonl > /dev/null # into the page cache: every contender reads it warm

for cli in "$root/dist/cli.cjs" ${BASE:+"$BASE"}; do
  name=$([ "$cli" = "$root/dist/cli.cjs" ] && echo kvgate || echo base)
  t "$runs" "$name: observe 10M nvidia-smi lines" -- node "$cli" observe --metrics "$work/gpu.csv" --host fv-ml1 --repo "$fleet" --format json
  t "$runs" "$name: usage $rows rows, JSON lines" -- node "$cli" usage --litellm "$work/spend.jsonl" --repo "$fleet" --format json
  t "$runs" "$name: usage $rows rows, CSV" -- node "$cli" usage --litellm "$work/spend.csv" --repo "$fleet" --format json
  t "$runs" "$name: usage $rows rows, newest first" -- node "$cli" usage --litellm "$work/newest-first.jsonl" --repo "$fleet" --format json
done

echo
echo "| benchmark | median s | min s | cpu s | peak RSS MiB |"
echo "|---|---|---|---|---|"
node -e '
for (const l of require("fs").readFileSync(process.argv[1], "utf8").trim().split("\n")) {
  const r = JSON.parse(l);
  console.log(`| ${r.label} | ${r.median_s} | ${r.min_s} | ${r.cpu_s} | ${r.peak_rss_mib} |`);
}' "$out"
