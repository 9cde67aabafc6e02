#!/usr/bin/env bash
# `kvgate usage` and `kvgate observe` at scale, each beside its floor (issue 18's targets):
#   - usage on ROWS (default 10,000,000) rows of JSON lines vs `wc -l` + a bare JSON.parse loop
#     (bench/lib/json-floor.mjs): ≤ 1.5 × their sum, peak RSS ≤ 256 MiB;
#   - usage --litellm-db on the same rows in PostgreSQL vs the same SQL in psql: ≤ 2 ×, client RSS ≤ 128 MiB;
#   - observe on a month of per-minute samples for 8 cards: < 2 s.
# Medians of RUNS (default 3) whole processes; peak RSS from GNU time. The spend-log files (~4 GB each)
# and the database live in a temp folder removed at the end. SKIP_DB=1 leaves out PostgreSQL.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
rows=${ROWS:-10000000}
runs=${RUNS:-3}
work=$(mktemp -d "${TMPDIR:-/tmp}/kvgate-bench-usage.XXXXXX")
pgdata=""
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
cleanup() {
  if [ -n "$pgdata" ]; then as_pg "$pgbin/pg_ctl" -D "$pgdata" -m immediate -w stop >/dev/null 2>&1 || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
out="$work/results.jsonl"
command -v /usr/bin/time >/dev/null || { echo "bench/usage.sh needs GNU time (apt-get install -y time)" >&2; exit 2; }

(cd "$root" && node build.mjs cli)
fleet="$root/examples/fleet"
kv() { node "$root/bin/kvgate.js" "$@"; }
t() { node "$here/lib/rss.mjs" "$@" >> "$out"; tail -1 "$out" >&2; }

echo "generating $rows spend-log rows (JSON lines) ..." >&2
node "$here/gen-spend-logs.mjs" --rows "$rows" --out "$work/spend.jsonl"
ls -l "$work/spend.jsonl" >&2
cat "$work/spend.jsonl" > /dev/null # into the page cache: every contender reads it warm

t "$runs" "usage: wc -l" -- wc -l "$work/spend.jsonl"
t "$runs" "usage: bare JSON.parse loop (the floor)" -- node "$here/lib/json-floor.mjs" "$work/spend.jsonl"
t "$runs" "usage: kvgate usage --litellm" -- node "$root/bin/kvgate.js" usage --litellm "$work/spend.jsonl" --repo "$fleet" --format json

if [ "${SKIP_DB:-0}" != 1 ]; then
  pgbin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
  [ -n "$pgbin" ] || { echo "no PostgreSQL: apt-get install -y postgresql (or SKIP_DB=1)" >&2; exit 2; }
  echo "generating the same rows as CSV and loading them into PostgreSQL ..." >&2
  node "$here/gen-spend-logs.mjs" --rows "$rows" --format csv --out "$work/spend.csv"
  rm -f "$work/spend.jsonl"
  mkdir -p "$work/pg"
  [ "$(id -u)" = 0 ] && chown postgres "$work/pg" && chmod 755 "$work"
  pgdata="$work/pg/data"
  as_pg "$pgbin/initdb" -D "$pgdata" -U postgres --auth-local=trust --auth-host=trust -E UTF8 --locale=C.UTF-8 >/dev/null
  port=$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
  as_pg "$pgbin/pg_ctl" -D "$pgdata" -o "-p $port -k $work/pg -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c work_mem=256MB -c shared_buffers=1GB" -l "$work/pg/log" -w start >/dev/null
  # The socket accepts any local user (trust): psql runs as us, only the server as postgres.
  psql=("$pgbin/psql" -h "$work/pg" -p "$port" -U postgres -X -q -v ON_ERROR_STOP=1)
  "${psql[@]}" -c "CREATE DATABASE litellm" >/dev/null
  "${psql[@]}" -d litellm -f "$root/test/helpers/litellm-spendlogs.sql" >/dev/null
  "${psql[@]}" -d litellm -c "\\copy \"LiteLLM_SpendLogs\"(request_id,call_type,api_key,prompt_tokens,completion_tokens,\"startTime\",\"endTime\",model,model_group,metadata,status) FROM STDIN WITH (FORMAT csv, HEADER true)" < "$work/spend.csv"
  "${psql[@]}" -d litellm -c "VACUUM ANALYZE \"LiteLLM_SpendLogs\"" >/dev/null
  rm -f "$work/spend.csv"
  url="postgresql://postgres@127.0.0.1:$port/litellm"
  # The thresholds kvgate binds for the example fleet (each seat's output cap below 100,000 tokens),
  # read from a report on one generated week.
  node "$here/gen-spend-logs.mjs" --out "$work/week.jsonl" 2>/dev/null
  kv usage --litellm "$work/week.jsonl" --repo "$fleet" --format json > "$work/db.json"
  thresholds=$(node -e 'const r=require(process.argv[1]);const t={};for(const s of r.services)if(s.runaway_threshold_tokens!==100000)t[s.name]=s.runaway_threshold_tokens;console.log(JSON.stringify(t))' "$work/db.json")
  (cd "$root" && ./node_modules/.bin/esbuild src/usage/sql.ts --bundle --platform=node --format=esm --outfile="$work/sql.mjs" --log-level=warning)
  node "$here/lib/usage-sql.mjs" "$work/sql.mjs" "$thresholds" > "$work/bare.sql"
  chmod 644 "$work/bare.sql"
  t "$runs" "usage-db: the same SQL in psql (the floor)" -- "${psql[@]}" -d litellm -o /dev/null -f "$work/bare.sql"
  t "$runs" "usage-db: kvgate usage --litellm-db" -- node "$root/bin/kvgate.js" usage --litellm-db "$url" --repo "$fleet" --format json
fi

echo "observe: a month of per-minute samples for 8 cards ..." >&2
node "$here/gen-gpu-samples.mjs" --cards 8 --out "$work/gpu8.csv"
mkdir -p "$work/fleet8"
{
  echo "fleet:"
  echo "  hosts:"
  echo "    fv-ml1:"
  echo "      gpus:"
  for i in 0 1 2 3 4 5 6 7; do echo "        - { index: $i, total: 96GiB, reserve: 1GiB }"; done
} > "$work/fleet8/kvgate.yaml"
t 5 "observe: kvgate observe, 8 cards x 30 days" -- node "$root/bin/kvgate.js" observe --metrics "$work/gpu8.csv" --repo "$work/fleet8" --format json
t 5 "observe: the same, --format svg" -- node "$root/bin/kvgate.js" observe --metrics "$work/gpu8.csv" --repo "$work/fleet8" --format svg --output "$work/gpu8.svg"
t 5 "observe: node -e 0 (startup floor)" -- node -e 0

node - "$out" <<'NODE'
const rows = require("fs").readFileSync(process.argv[2], "utf8").trim().split("\n").map((l) => JSON.parse(l));
const by = (l) => rows.find((r) => r.label === l);
console.log("| benchmark | median s | min s | cpu s | peak RSS MiB |\n|---|---|---|---|---|");
for (const r of rows) console.log(`| ${r.label} | ${r.median_s} | ${r.min_s} | ${r.cpu_s} | ${r.peak_rss_mib} |`);
const wc = by("usage: wc -l"), floor = by("usage: bare JSON.parse loop (the floor)"), usage = by("usage: kvgate usage --litellm");
const ratio = usage.median_s / (wc.median_s + floor.median_s);
console.log(`\ntarget usage ≤ 1.5 × (wc -l + parse floor): ${ratio.toFixed(2)} × — ${ratio <= 1.5 ? "met" : "NOT met"}; peak RSS ${usage.peak_rss_mib} MiB ≤ 256 — ${usage.peak_rss_mib <= 256 ? "met" : "NOT met"}`);
const bare = by("usage-db: the same SQL in psql (the floor)"), db = by("usage-db: kvgate usage --litellm-db");
if (bare && db) {
  const r = db.median_s / bare.median_s;
  console.log(`target usage --litellm-db ≤ 2 × psql: ${r.toFixed(2)} × — ${r <= 2 ? "met" : "NOT met"}; client RSS ${db.peak_rss_mib} MiB ≤ 128 — ${db.peak_rss_mib <= 128 ? "met" : "NOT met"}`);
}
const obs = by("observe: kvgate observe, 8 cards x 30 days");
console.log(`target observe < 2 s: ${obs.median_s} s — ${obs.median_s < 2 ? "met" : "NOT met"}`);
NODE
