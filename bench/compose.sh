#!/usr/bin/env bash
# Issue 25: what a compose file costs `kvgate explain` (whole process: CPU, peak RSS, wall), for big
# files and hostile shapes (bench/lib/compose-shapes.mjs), and what the compose reader adds to a run
# that reads no compose file (the hook's start-up). Targets: a 10 MB file within 1 s CPU and 150 MiB;
# each hostile shape read or refused within 1 s.
#   RUNS (default 5)  BASE (a kvgate checkout whose bin/kvgate.js runs as the peer, e.g. main's)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
runs=${RUNS:-5}
work=$(mktemp -d "${TMPDIR:-/tmp}/kvgate-compose-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
(cd "$root" && node build.mjs cli >/dev/null)

peers=("this=$root/bin/kvgate.js")
[ -n "${BASE:-}" ] && peers+=("base=$BASE/bin/kvgate.js")

node "$here/lib/compose-shapes.mjs" "$work" > "$work/shapes.tsv"
while IFS=$'\t' read -r name repo bytes; do
  for pair in "${peers[@]}"; do
    who=${pair%%=*}
    bin=${pair#*=}
    # explain exits 0 whatever it reports: a refusal is a compose/parse finding, not a failure.
    node "$here/lib/rss.mjs" "$runs" "compose ($who): explain, $name ($bytes bytes)" -- \
      env BENCH_TIMEOUT_MS=120000 node "$bin" explain --repo "$repo" --format json
  done
done < "$work/shapes.tsv"

# Start-up: a full staged check of a small fleet that has no compose file (the CLI bundle loaded).
small="$work/startup"
mkdir -p "$small/scripts"
git -C "$small" init -q
printf 'version: 1\nfleet:\n  hosts:\n    h: { gpus: [ { index: 0, total: 48GiB } ] }\n' > "$small/kvgate.yaml"
printf 'ENGINE=vllm\nHOST=h\nGPU=0\nMODEL=Qwen/Qwen3-8B\nMAX_MODEL_LEN=8192\nKV_CACHE_MEMORY_BYTES=4294967296\n' > "$small/scripts/chat.env"
git -C "$small" add -A && git -C "$small" -c user.name=b -c user.email=b@b commit -qm fleet
echo "MAX_MODEL_LEN=8192 # touched" >> "$small/scripts/chat.env"
git -C "$small" add -A
for pair in "${peers[@]}"; do
  who=${pair%%=*}
  bin=${pair#*=}
  (cd "$small" && node "$bin" check --staged >/dev/null 2>&1 || true)
  node "$here/lib/time.mjs" "$((runs * 2 + 1))" "$small" "startup ($who): check --staged, no compose file" -- node "$bin" check --staged
done
