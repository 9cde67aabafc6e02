// Each scanner's report as the places it flags, `file:line` relative to the scanned tree. kvgate's
// count only when they block a commit (open, severity error): an exempt placeholder is not a report.
// Shared by the scorers of the project's corpus (score-labelled.mjs) and the external one
// (external/score.mjs).
import { existsSync, readFileSync } from "node:fs";
import { isAbsolute, relative } from "node:path";

const parsers = {
  kvgate: (t) =>
    JSON.parse(t)
      .findings.filter((f) => f.rule.startsWith("secret/") && f.status === "open" && f.severity === "error")
      .map((f) => ({ file: f.file, line: f.line })),
  gitleaks: (t) => JSON.parse(t || "[]").map((f) => ({ file: f.File, line: f.StartLine })),
  "git-secrets": (t) =>
    t.split("\n").flatMap((l) => {
      const m = /^([^:\s][^:]*):(\d+):/.exec(l);
      return m ? [{ file: m[1], line: Number(m[2]) }] : [];
    }),
  secretlint: (t) => JSON.parse(t || "[]").flatMap((f) => f.messages.map((m) => ({ file: f.filePath, line: m.loc.start.line }))),
};

/**
 * A tool's runs from `<name>=<format>:<report>:<seconds>` arguments: each with its flagged places
 * (`file:line`) and files, or null when the tool did not run (no report).
 */
export function readRuns(tree, runs) {
  const rel = (f) => (isAbsolute(f) ? relative(tree, f) : f.replace(/^\.\//, ""));
  return runs.map((run) => {
    const [name, rest] = run.split("=");
    const [format, file, seconds] = rest.split(":");
    if (!existsSync(file)) return { name, hits: null, files: null, seconds: Number(seconds) };
    const places = parsers[format](readFileSync(file, "utf8")).map((p) => ({ file: rel(p.file), line: p.line }));
    return {
      name,
      hits: new Set(places.map((p) => `${p.file}:${p.line}`)),
      files: new Set(places.map((p) => p.file)),
      seconds: Number(seconds),
    };
  });
}
