// Value fixes beyond the sizing rules, through the built CLI in real temp repos holding the example
// fleet: gen/output-cap (the cap is a key inside the JSON of a flag inside a double-quoted env value)
// and engine/bad-value (a quantity in a unit the key does not take) are fixed by `kvgate check --fix`
// and re-checked; and the SARIF log carries each value fix as a replacement that, applied to the file,
// gives exactly what `--fix` writes.
import { afterEach, describe, expect, test } from "vitest";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { kvgate } from "../helpers/cli.js";
import type { TempFolder, TempRepo } from "../helpers/repo.js";
import { FRANK, fleetRepo, report, setEnv, type JsonFinding, type JsonReport } from "./fixtures/fleet.js";
import { sarifErrors } from "../delivery/sarif-schema.js";

const made: TempFolder[] = [];
afterEach(async () => {
  for (const r of made.splice(0)) await r.cleanup();
});

const INTERN = "scripts/intern-decision.env";
const read = (repo: TempRepo, file: string) => readFileSync(join(repo.dir, file), "utf8");
const edit = (repo: TempRepo, file: string, fn: (t: string) => string) => repo.write(file, fn(read(repo, file)));
const open = (doc: JsonReport) => doc.findings.filter((f) => f.status === "open");
const errorsOf = (doc: JsonReport) =>
  new Set(
    open(doc)
      .filter((f) => f.severity === "error")
      .map((f) => `${f.rule} ${f.service ?? ""}`),
  );

/** The output cap raised past intern-decision's 32,768-token context, in SERVE_ARGS="… '{\"max_new_tokens\":N}'". */
const capAbove = (r: TempRepo) => edit(r, INTERN, (t) => t.replace('{\\"max_new_tokens\\":2048}', '{\\"max_new_tokens\\":65536}'));
/** The pin moved from the env key to the flag, written in GiB, which vLLM refuses at boot. */
const pinInGiB = (r: TempRepo) =>
  edit(r, INTERN, (t) =>
    t
      .replace(/^KV_CACHE_MEMORY_BYTES=.*\n/m, "")
      .replace(
        'SERVE_ARGS="--served-model-name intern-decision',
        'SERVE_ARGS="--served-model-name intern-decision --kv-cache-memory-bytes 6GiB',
      ),
  );

interface Case {
  name: string;
  rule: string;
  change: (r: TempRepo) => void;
  key: string;
  value: string;
  /** The line that sets it, and the line as --fix leaves it. */
  lineNo: number;
  line: string;
}

const CASES: Case[] = [
  {
    name: "gen/output-cap: max_new_tokens 65,536 over a 32,768 context is lowered to 32,768 inside the flag's JSON",
    rule: "gen/output-cap",
    change: capAbove,
    key: "--override-generation-config",
    value: '{"max_new_tokens":32768}',
    lineNo: 10,
    line: `SERVE_ARGS="--served-model-name intern-decision --override-generation-config '{\\"max_new_tokens\\":32768}'"`,
  },
  {
    name: "engine/bad-value: --kv-cache-memory-bytes 6GiB becomes 6,442,450,944 bytes",
    rule: "engine/bad-value",
    change: pinInGiB,
    key: "--kv-cache-memory-bytes",
    value: "6442450944",
    lineNo: 9, // the KV_CACHE_MEMORY_BYTES line above it is gone
    line: `SERVE_ARGS="--served-model-name intern-decision --kv-cache-memory-bytes 6442450944 --override-generation-config '{\\"max_new_tokens\\":2048}'"`,
  },
];

async function staged(change: (r: TempRepo) => void): Promise<{ repo: TempRepo; before: JsonReport }> {
  const { repo } = await fleetRepo(made);
  change(repo);
  repo.stage();
  return { repo, before: report(kvgate(["check", "--staged", "--format", "json"], { cwd: repo.dir })) };
}

describe("check --fix writes value fixes that clear the finding", () => {
  test.each(CASES)("$name", async (c) => {
    const { repo, before } = await staged(c.change);
    const hits = open(before).filter((f) => f.rule === c.rule);
    expect(hits.map((f) => [f.severity, f.data.fix])).toEqual([["error", { file: INTERN, line: c.lineNo, key: c.key, value: c.value }]]);
    const index = repo.git("diff", "--cached");

    const run = kvgate(["check", "--staged", "--fix"], { cwd: repo.dir });
    expect(run.stdout).toContain(`fixed ${INTERN}:${c.lineNo} ${c.key}`);
    expect(run.stdout).toContain(`${c.value} (${c.rule})`);
    expect(repo.git("diff", "--cached")).toBe(index); // the working tree only
    expect(read(repo, INTERN).split("\n")[c.lineNo - 1]).toBe(c.line);

    repo.stage();
    const again = report(kvgate(["check", "--staged", "--format", "json"], { cwd: repo.dir }));
    expect(open(again).filter((f) => f.rule === c.rule)).toEqual([]);
    const had = errorsOf(before);
    expect([...errorsOf(again)].filter((e) => !had.has(e))).toEqual([]);
    expect(open(again).filter((f) => f.rule === "env/parse" || f.rule === "env/conflict")).toEqual([]);
  });
});

interface SarifReplacement {
  deletedRegion: { charOffset: number; charLength: number; startLine?: number; startColumn?: number; endColumn?: number };
  insertedContent: { text: string };
}
interface SarifFix {
  description: { text: string };
  artifactChanges: { artifactLocation: { uri: string; uriBaseId: string }; replacements: SarifReplacement[] }[];
}
interface SarifResult {
  ruleId: string;
  fixes?: SarifFix[];
  suppressions?: unknown[];
}

/** What a SARIF viewer's "apply fix" does: each replacement, from the end of the file back. */
function applySarifFix(text: string, fix: SarifFix, uri: string): string {
  const reps = fix.artifactChanges.filter((a) => a.artifactLocation.uri === uri).flatMap((a) => a.replacements);
  return reps
    .sort((a, b) => b.deletedRegion.charOffset - a.deletedRegion.charOffset)
    .reduce(
      (t, r) =>
        t.slice(0, r.deletedRegion.charOffset) + r.insertedContent.text + t.slice(r.deletedRegion.charOffset + r.deletedRegion.charLength),
      text,
    );
}

const SARIF_CASES: {
  name: string;
  rule: string;
  file: string;
  change: (r: TempRepo) => void;
  region: Partial<SarifReplacement["deletedRegion"]> | "insertion";
}[] = [
  // `SERVE_ARGS="` (12) + `--served-model-name intern-decision ` (36) + `--override-generation-config ` (29):
  // the quoted JSON starts at column 78 and runs 28 characters ('{\"max_new_tokens\":65536}').
  {
    name: "the JSON cap inside a double-quoted env value",
    rule: "gen/output-cap",
    file: INTERN,
    change: capAbove,
    region: { startLine: 10, startColumn: 78, endColumn: 106 },
  },
  // 12 + 36 + `--max-model-len ` (16): `32KiB` at columns 65–69 (the env key's 32,768 still holds, so
  // this is the one fix of the change).
  {
    name: "a unit conversion in a flag",
    rule: "engine/bad-value",
    file: INTERN,
    change: (r) =>
      edit(r, INTERN, (t) =>
        t.replace(
          'SERVE_ARGS="--served-model-name intern-decision',
          'SERVE_ARGS="--served-model-name intern-decision --max-model-len 32KiB',
        ),
      ),
    region: { startLine: 10, startColumn: 65, endColumn: 70 },
  },
  // TTM_MIN_MIB=97791 on line 22: the value starts at column 13 and is 5 wide.
  {
    name: "an env key's value",
    rule: "ttm/ledger",
    file: FRANK,
    change: (r) => edit(r, FRANK, (t) => setEnv(t, { TTM_MIN_MIB: "97791" })),
    region: { startLine: 22, startColumn: 13, endColumn: 18 },
  },
  {
    name: "a key the file does not set yet: an insertion at the end",
    rule: "kv/unpinned-shared-card",
    file: INTERN,
    change: (r) => edit(r, INTERN, (t) => t.replace(/^KV_CACHE_MEMORY_BYTES=.*\n/m, "")),
    region: "insertion",
  },
];

describe("SARIF carries each value fix as a replacement (SARIF 2.1.0 §3.55)", () => {
  test.each(SARIF_CASES)("$rule: $name; applying it gives what check --fix writes", async (c) => {
    const { repo, before } = await staged(c.change);
    const finding = open(before).find((f) => f.rule === c.rule) as JsonFinding;
    expect(finding.data.fix, c.rule).toBeDefined();
    const sarifRun = kvgate(["check", "--staged", "--format", "sarif"], { cwd: repo.dir });
    const log = JSON.parse(sarifRun.stdout);
    expect(sarifErrors(log)).toEqual([]);
    const result = (log.runs[0].results as SarifResult[]).find((r) => r.ruleId === c.rule && !r.suppressions) as SarifResult;
    expect(result.fixes).toHaveLength(1);
    const fix = (result.fixes as SarifFix[])[0] as SarifFix;
    const fixData = finding.data.fix as { key: string; value: string };
    expect(fix.description.text).toContain(fixData.value);
    expect(fix.artifactChanges.map((a) => a.artifactLocation)).toEqual([{ uri: c.file, uriBaseId: "%SRCROOT%" }]);
    const region = fix.artifactChanges[0]?.replacements[0]?.deletedRegion;
    const text = read(repo, c.file);
    if (c.region === "insertion") expect(region).toEqual({ charOffset: text.length, charLength: 0 });
    else expect(region).toMatchObject(c.region);

    const bySarif = applySarifFix(text, fix, c.file);
    expect(bySarif).not.toBe(text);
    kvgate(["check", "--staged", "--fix"], { cwd: repo.dir });
    expect(read(repo, c.file)).toBe(bySarif);
  });

  test("a fleet with nothing to fix: no result carries a SARIF fix", async () => {
    const { repo } = await fleetRepo(made);
    const log = JSON.parse(kvgate(["check", "--all", "--format", "sarif"], { cwd: repo.dir }).stdout);
    const open = (log.runs[0].results as SarifResult[]).filter((r) => !r.suppressions);
    expect(open.filter((r) => r.fixes)).toEqual([]);
  });
});
