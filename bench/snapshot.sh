#!/usr/bin/env bash
# Item 4 of issue 13: does a V8 startup snapshot of the CLI pay? Builds the staged check as one CommonJS
# bundle, a snapshot of it per Node binary (`node --build-snapshot`), and times, round-robin on a repo
# with a staged env change (the full path): node -e 0, the bundle loaded as usual, the same bundle
# from the snapshot, and bin/kvgate.js (Node >= 22: its compile cache). Not part of `npm run bench`.
#   RUNS (default 15)  NODE_VERSIONS (default 24, from bench/.node as bench/run.sh installs them)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/kvgate-snapshot.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$root"
node -e '
  const y = require("yaml"), fs = require("fs"), o = {};
  for (const f of fs.readdirSync("rules").filter((f) => f.endsWith(".yaml")).sort()) o[f] = y.parse(fs.readFileSync("rules/" + f, "utf8"));
  fs.writeFileSync(process.argv[1], JSON.stringify(o));
' "$work/rules.json"
cat > "$work/plain.ts" <<TS
import { checkCommand } from "$root/src/cli/commands/check.ts";
checkCommand(process.argv.slice(2)).then((c) => { process.exitCode = c; }, (e) => { console.error(e); process.exitCode = 2; });
TS
cat > "$work/snap.ts" <<TS
import { checkCommand } from "$root/src/cli/commands/check.ts";
import { startupSnapshot } from "node:v8";
startupSnapshot.setDeserializeMainFunction(() => {
  checkCommand(process.argv.slice(2)).then((c) => { process.exitCode = c; }, (e) => { console.error(e); process.exitCode = 2; });
});
TS
for f in plain snap; do
  ./node_modules/.bin/esbuild "$work/$f.ts" --bundle --platform=node --format=cjs --outfile="$work/$f.cjs" --external:pg-native \
    --define:__KVGATE_RULES__="$(cat "$work/rules.json")" --minify-whitespace --minify-syntax --log-level=error
done
repo="$work/fleet"
node "$here/lib/make-fleet-repo.mjs" "$repo" 10000 >/dev/null
sets='[{"label":"node -e 0 (node MAJ)","cmd":["BIN","-e","0"]},{"label":"check --staged, bundle (node MAJ)","cmd":["BIN","PLAIN","--staged"]},{"label":"check --staged, snapshot (node MAJ)","cmd":["BIN","--snapshot-blob","BLOB","--staged"]},{"label":"bin/kvgate.js check --staged (node MAJ)","cmd":["BIN","KV","check","--staged"]}]'
all="["
for pair in "$(node -p 'process.versions.node.split(".")[0]')=$(command -v node)" $(for m in ${NODE_VERSIONS-24}; do echo "$m=$here/.node/$m/node_modules/node/bin/node"; done); do
  major=${pair%%=*}; bin=${pair#*=}
  [ -x "$bin" ] || continue
  (cd "$work" && "$bin" --snapshot-blob "snap$major.blob" --build-snapshot snap.cjs 2>/dev/null)
  echo "snapshot for node $major: $(du -h "$work/snap$major.blob" | cut -f1)" >&2
  all+=$(echo "$sets" | sed -e "s|MAJ|$major|g" -e "s|BIN|$bin|g" -e "s|PLAIN|$work/plain.cjs|g" -e "s|BLOB|$work/snap$major.blob|g" -e "s|KV|$root/bin/kvgate.js|g" | sed -e 's/^\[//' -e 's/\]$//'),
done
all="${all%,}]"
cat > "$work/rr.mjs" <<'JS'
import { spawnSync } from "node:child_process";
const [runs, cwd, json] = process.argv.slice(2);
const sets = JSON.parse(json);
const times = sets.map(() => []);
for (let i = 0; i <= Number(runs); i++) sets.forEach((s, k) => {
  const t0 = process.hrtime.bigint();
  spawnSync(s.cmd[0], s.cmd.slice(1), { cwd, stdio: "ignore", env: { ...process.env, NO_COLOR: "1" } });
  if (i > 0) times[k].push(Number(process.hrtime.bigint() - t0) / 1e6);
});
sets.forEach((s, k) => { const t = times[k].sort((a, b) => a - b); console.log(`${s.label.padEnd(44)} median ${t[Math.floor(t.length / 2)].toFixed(1)} ms  min ${t[0].toFixed(1)}`); });
JS
node "$work/rr.mjs" "${RUNS:-15}" "$repo" "$all"
