// Prints bench results (JSON lines from time.mjs) as one table, with the targets of issue 8.
import { readFileSync } from "node:fs";

const rows = readFileSync(process.argv[2], "utf8").trim().split("\n").filter(Boolean).map((l) => JSON.parse(l));
const by = (label) => rows.find((r) => r.label === label);
const pad = (s, n) => String(s).padEnd(n);
console.log(`${pad("benchmark", 46)} ${pad("median ms", 10)} ${pad("min", 8)} ${pad("max", 8)} exit`);
for (const r of rows) console.log(`${pad(r.label, 46)} ${pad(r.median_ms, 10)} ${pad(r.min_ms, 8)} ${pad(r.max_ms, 8)} ${r.exit}`);
console.log("");
const hook = by("hook: kvgate check --staged");
const gs = by("hook: git secrets --pre_commit_hook");
if (hook) console.log(`target hook < 150 ms: ${hook.median_ms} ms — ${hook.median_ms < 150 ? "met" : "NOT met"}`);
if (hook && gs) console.log(`target hook ≤ git-secrets: ${hook.median_ms} vs ${gs.median_ms} ms — ${hook.median_ms <= gs.median_ms ? "met" : "NOT met"}`);
const floor = by("audit: git log -p (the floor)");
const audit = by("audit: kvgate audit");
if (floor && audit) console.log(`target audit ≤ 1.5 × git log -p: ${(audit.median_ms / floor.median_ms).toFixed(2)} × — ${audit.median_ms <= 1.5 * floor.median_ms ? "met" : "NOT met"}`);
const plan = rows.filter((r) => r.label.startsWith("plan: 24"));
if (plan.length) console.log(`target plan 24 x 8 < 1 s: worst median ${Math.max(...plan.map((r) => r.median_ms))} ms — ${plan.every((r) => r.median_ms < 1000) ? "met" : "NOT met"}`);
const gsCommit = by("commit: git-secrets' hooks");
for (const r of rows.filter((r) => r.label.startsWith("commit: kvgate init's hooks"))) {
  if (gsCommit) console.log(`target ${r.label.slice(8)} commit ≤ 2 × git-secrets': ${(r.median_ms / gsCommit.median_ms).toFixed(2)} × — ${r.median_ms <= 2 * gsCommit.median_ms ? "met" : "NOT met"}`);
}
