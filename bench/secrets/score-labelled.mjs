// Scores each tool's report against labels.json of the labelled corpus, per family: secrets found (a
// report on the labelled file and line), missed, and negatives flagged (false positives). kvgate counts
// only open findings of severity error (what blocks a commit); an exempt placeholder is not a report.
// Prints counts only, never a tool's matched text.
// Usage: node score-labelled.mjs <labels.json> <tree> <tool>=<format>:<report>:<seconds> ...
import { readFileSync } from "node:fs";
import { readRuns } from "./reports.mjs";

const [labelsFile, tree, ...runs] = process.argv.slice(2);
const labels = JSON.parse(readFileSync(labelsFile, "utf8"));
const tools = readRuns(tree, runs);

const families = [...new Set(labels.map((l) => l.family))];
const cell = (tool, family) => {
  if (!tool.hits) return "not run";
  const rows = labels.filter((l) => l.family === family);
  const pos = rows.filter((l) => l.expect === "secret");
  const neg = rows.filter((l) => l.expect === "none");
  const found = pos.filter((l) => tool.hits.has(`${l.file}:${l.line}`)).length;
  const fp = neg.filter((l) => tool.hits.has(`${l.file}:${l.line}`)).length;
  return `${found}/${pos.length}${fp ? ` (${fp} FP)` : ""}`;
};
const head = ["family", "negatives", ...tools.map((t) => t.name)];
const out = [head, head.map(() => "---")];
for (const f of families)
  out.push([f, String(labels.filter((l) => l.family === f && l.expect === "none").length), ...tools.map((t) => cell(t, f))]);
const total = (tool) => {
  if (!tool.hits) return ["not run", "-", "-"];
  const pos = labels.filter((l) => l.expect === "secret");
  const neg = labels.filter((l) => l.expect === "none");
  const found = pos.filter((l) => tool.hits.has(`${l.file}:${l.line}`)).length;
  const fp = neg.filter((l) => tool.hits.has(`${l.file}:${l.line}`)).length;
  const worse = families.filter((f) => tool !== tools[0]);
  void worse;
  return [`${found}/${pos.length}`, `${fp}/${neg.length}`, `${tool.seconds.toFixed(2)} s`];
};
out.push(["**all: found**", "", ...tools.map((t) => `**${total(t)[0]}**`)]);
out.push(["**all: false positives**", "", ...tools.map((t) => `**${total(t)[1]}**`)]);
out.push(["**wall time**", "", ...tools.map((t) => total(t)[2])]);
for (const r of out) console.log(`| ${r.join(" | ")} |`);

// The issue's targets, kvgate (first tool) against gitleaks.
const kv = tools[0];
const gl = tools.find((t) => t.name.startsWith("gitleaks"));
if (kv?.hits && gl?.hits) {
  const below = families.filter((f) => {
    const pos = labels.filter((l) => l.family === f && l.expect === "secret");
    const n = (t) => pos.filter((l) => t.hits.has(`${l.file}:${l.line}`)).length;
    return n(kv) < n(gl);
  });
  const fp = (t) => labels.filter((l) => l.expect === "none" && t.hits.has(`${l.file}:${l.line}`)).length;
  console.log("");
  console.log(`target recall ≥ gitleaks on every family: ${below.length === 0 ? "met" : `NOT met (${below.join(", ")})`}`);
  console.log(`target false positives ≤ half of gitleaks': ${fp(kv)} vs ${fp(gl)} — ${fp(kv) * 2 <= fp(gl) ? "met" : "NOT met"}`);
}
