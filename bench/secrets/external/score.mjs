// Scores each tool on the external corpus (build-corpus.mjs), one case a file: a secret case is found
// when the tool reports anything in its file; a negative case is a false alarm when it does. Families
// kvgate claims get a row each; the rest are one row, "other". Prints counts only, never a matched
// text; then the issue's targets, kvgate (the first tool) against gitleaks.
// Usage: node score.mjs <labels.json> <tree> <tool>=<format>:<report>:<seconds> ...
import { readFileSync } from "node:fs";
import { readRuns } from "../reports.mjs";

const [labelsFile, tree, ...runs] = process.argv.slice(2);
const { meta, labels } = JSON.parse(readFileSync(labelsFile, "utf8"));
const tools = readRuns(tree, runs);

const rowOf = (l) => (l.claimed ? l.family : "other (no kvgate family)");
const rows = [...new Set(labels.filter((l) => l.claimed).map(rowOf))].sort();
rows.push("other (no kvgate family)");

const count = (tool, cases) => ({
  found: cases.filter((l) => l.expect === "secret" && tool.files.has(l.file)).length,
  flagged: cases.filter((l) => l.expect === "none" && tool.files.has(l.file)).length,
});
const cell = (tool, cases) => {
  if (!tool.files) return "not run";
  const { found, flagged } = count(tool, cases);
  const pos = cases.filter((l) => l.expect === "secret").length;
  const neg = cases.length - pos;
  return `${found}/${pos}${neg ? `, ${flagged}/${neg} FP` : ""}`;
};

const head = ["family", "secrets", "negatives", ...tools.map((t) => t.name)];
const out = [head, head.map(() => "---")];
for (const r of rows) {
  const cases = labels.filter((l) => rowOf(l) === r);
  const pos = cases.filter((l) => l.expect === "secret").length;
  out.push([r, String(pos), String(cases.length - pos), ...tools.map((t) => cell(t, cases))]);
}
const claimed = labels.filter((l) => l.claimed);
out.push(["**claimed families**", "", "", ...tools.map((t) => `**${cell(t, claimed)}**`)]);
out.push(["**all**", "", "", ...tools.map((t) => `**${cell(t, labels)}**`)]);
out.push(["**wall time**", "", "", ...tools.map((t) => (t.files ? `${t.seconds.toFixed(2)} s` : "-"))]);
for (const r of out) console.log(`| ${r.join(" | ")} |`);

const sources = Object.entries(meta.sources).map(([n, s]) => `${n} ${s.commit.slice(0, 12)}`);
console.log(
  `\n${labels.length} cases from ${sources.join(", ")}; left out: ${Object.values(meta.left_out).reduce((a, b) => a + b, 0)} (labels.json meta.left_out)`,
);

const kv = tools[0];
const gl = tools.find((t) => t.name.startsWith("gitleaks"));
if (kv?.files && gl?.files) {
  const below = rows
    .filter((r) => !r.startsWith("other"))
    .filter((r) => {
      const cases = labels.filter((l) => rowOf(l) === r);
      return count(kv, cases).found < count(gl, cases).found;
    });
  const fk = count(kv, labels).flagged;
  const fg = count(gl, labels).flagged;
  console.log(
    `target blocking recall ≥ gitleaks' in every claimed family: ${below.length === 0 ? "met" : `NOT met (${below.join(", ")})`}`,
  );
  console.log(`target false alarms below gitleaks': ${fk} vs ${fg} — ${fk < fg ? "met" : "NOT met"}`);
}
