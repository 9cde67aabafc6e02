// In-memory snapshots for table tests of checks through the real engine pipeline (parse → model →
// checks → findings). Git itself is exercised by the end-to-end tests in real temp repos.
import picomatch from "picomatch";
import type { ChangedFile, Snapshot } from "../../src/git/types.js";
import type { Finding } from "../../src/model/types.js";
import { runCase, type Case } from "./rule-tester.js";

export function memorySnapshot(files: Record<string, string>, label = "memory"): Snapshot {
  return {
    label,
    async list(globs) {
      const all = Object.keys(files).sort();
      if (globs === undefined) return all;
      const isMatch = picomatch([...globs], { dot: true });
      return all.filter((p) => isMatch(p));
    },
    async read(paths) {
      return new Map(paths.map((p) => [p, files[p] === undefined ? null : Buffer.from(files[p])]));
    },
  };
}

/** The changed files between two in-memory trees, with added lines computed line by line. */
export function diffFiles(before: Record<string, string> | null, after: Record<string, string>): ChangedFile[] {
  const out: ChangedFile[] = [];
  const paths = new Set([...Object.keys(before ?? {}), ...Object.keys(after)]);
  for (const path of [...paths].sort()) {
    const a = before?.[path] ?? null;
    const b = after[path] ?? null;
    if (a === b) continue;
    const old = new Set((a ?? "").split("\n"));
    const addedLines = (b ?? "")
      .split("\n")
      .map((text, i) => ({ line: i + 1, text }))
      .filter((l) => b !== null && !old.has(l.text));
    out.push({
      path,
      oldPath: null,
      status: a === null ? "added" : b === null ? "deleted" : "modified",
      before: a,
      after: b,
      binary: false,
      size: b?.length ?? 0,
      addedLines,
    });
  }
  return out;
}

export interface RunInput {
  before?: Record<string, string> | null;
  after: Record<string, string>;
  message?: string;
  trailers?: { key: string; value: string }[];
  env?: Record<string, string>;
}

/** Every check over an in-memory change, through the engine (the rule tester's `files` case). */
export async function runMemory(input: RunInput): Promise<Finding[]> {
  const c: Case = { name: "memory", files: input.after, beforeFiles: input.before === undefined ? null : input.before };
  if (input.message !== undefined) c.message = input.message;
  if (input.trailers !== undefined) c.trailers = input.trailers;
  if (input.env !== undefined) c.env = input.env;
  return (await runCase(c)).map(({ messageId: _id, secret: _secret, ...f }) => f);
}

/** `[rule, line]` pairs of open findings, for compact table assertions. */
export function openRules(findings: Finding[]): [string, number | null][] {
  return findings.filter((f) => f.status === "open").map((f) => [f.rule, f.line]);
}
