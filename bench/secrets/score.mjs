// Scores each tool's output against planted.json: a planted secret is found when the tool reports
// its file and line (kvgate: with status open); a planted non-secret (placeholder, vault reference)
// reported there is a false positive. Prints only counts and kinds, never a tool's matched text.
// Usage: node score.mjs <planted.json> <tool>=<format>:<output file>:<seconds> ...
import { readFileSync, existsSync } from "node:fs";

const [plantedFile, ...runs] = process.argv.slice(2);
const planted = JSON.parse(readFileSync(plantedFile, "utf8"));

const parsers = {
  // kvgate --format json: open findings are reports; exempt ones are the placeholder filter at work.
  kvgate(text) {
    const r = JSON.parse(text);
    return r.findings.filter((f) => f.rule.startsWith("secret/") && f.status === "open").map((f) => `${f.file}:${f.line}`);
  },
  // git secrets --scan-history: <commit>:<file>:<line>:<text>; --scan: <file>:<line>:<text>.
  "git-secrets"(text) {
    const out = [];
    for (const l of text.split("\n")) {
      const m = /^(?:[0-9a-f]{40}:)?([^:\s][^:]*):(\d+):/.exec(l);
      if (m) out.push(`${m[1]}:${m[2]}`);
    }
    return out;
  },
  // secretlint --format json: [{ filePath, messages: [{ loc: { start: { line } } }] }]
  secretlint(text, root) {
    const r = JSON.parse(text || "[]");
    return r.flatMap((f) => f.messages.map((m) => `${f.filePath.replace(`${root}/`, "")}:${m.loc.start.line}`));
  },
};

const secrets = planted.filter((p) => p.expect === "secret");
const inert = planted.filter((p) => p.expect === "none");
const rows = [];
for (const run of runs) {
  const [tool, rest] = run.split("=");
  const [format, file, seconds, root] = rest.split(":");
  if (!existsSync(file)) {
    rows.push({ tool, found: "-", missed: "not run", fp: "-", time: "-" });
    continue;
  }
  const hits = new Set(parsers[format](readFileSync(file, "utf8"), root));
  const missed = secrets.filter((p) => !hits.has(`${p.file}:${p.line}`));
  const fps = inert.filter((p) => hits.has(`${p.file}:${p.line}`));
  rows.push({
    tool,
    found: `${secrets.length - missed.length}/${secrets.length}`,
    missed: missed.length === 0 ? "none" : [...new Set(missed.map((p) => p.kind))].join(", "),
    fp: `${fps.length}/${inert.length}`,
    time: `${Number(seconds).toFixed(2)} s`,
  });
}

const head = ["tool", "planted secrets found", "missed", "placeholders/references flagged", "wall time"];
const lines = [head, head.map((h) => "-".repeat(h.length)), ...rows.map((r) => [r.tool, r.found, r.missed, r.fp, r.time])];
for (const l of lines) console.log(`| ${l.join(" | ")} |`);
