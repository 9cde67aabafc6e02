// The rule tester (ESLint's RuleTester shape): `ruleTester(rule, { valid, invalid })` is a rule's test
// table; test/rules/rules.test.ts runs every table of test/rules/tables/ through the real engine and
// finding pipeline (every phase: identify, judge, collect), and
// fails on a registered rule that no invalid case raises.
//
// A case gives the deploy unit one of three ways:
// - `fleet` (and `before`): the model built in memory by the fixtures (test/kv, test/radiance), the
//   unit's changed files in `changed`;
// - `files` (and `beforeFiles`): the repository as text, read by the real fleet loader;
// - `commit`: one commit for `kvgate audit` (the audit/* rules).
import { isDeepStrictEqual } from "node:util";
import { expect } from "vitest";
import type { ChangedFile, ChangeNotice, CommitInfo, DeployUnit, Trailer, UnitKind } from "../../src/git/types.js";
import type { Finding, FleetState } from "../../src/model/types.js";
import type { Policy } from "../../src/config/policy.js";
import type { AnyRule, CheckContext } from "../../src/checks/define.js";
import { isCheck } from "../../src/checks/define.js";
import { CHECKS } from "../../src/checks/registry.js";
import { checkFleets, unitDrafts } from "../../src/engine/run.js";
import { auditCommitDrafts } from "../../src/engine/audit.js";
import { runPhase, type Draft } from "../../src/engine/pipeline.js";
import { loadPack } from "../../src/rules/load.js";
import { policyFrom } from "./fixture-source.js";
import { loadFleet } from "../../src/load/fleet.js";
import { policyOf } from "../../src/load/config.js";
import { diffFiles, memorySnapshot } from "./memory.js";

export interface Case {
  /** What the case shows, as the test's title. */
  name: string;
  /** The case the rule's page (docs/rules/, npm run docs:rules) shows as its example; default: the first it can show. */
  example?: boolean;
  fleet?: FleetState;
  before?: FleetState | null;
  /** The unit's changed files (a path is a modified file with no added lines). */
  changed?: (string | ChangedFile)[];
  kind?: UnitKind;
  /** Paths of the unit that were not read (a symlink, a submodule), as git's listing reports them. */
  notices?: ChangeNotice[];
  policy?: Policy;
  env?: Record<string, string>;
  files?: Record<string, string>;
  beforeFiles?: Record<string, string> | null;
  /** Commit message and trailers of the unit (waivers), or of the audited commit. */
  message?: string;
  trailers?: Trailer[];
  /** An audited commit: its added lines. */
  commit?: { files: ChangedFile[] };
}

/** What a finding must show; fields left out are not compared, `data` is matched as a subset (use exact()). */
export interface Expected {
  /** Default: the table's rule (a rule that reports a family names each finding's rule). */
  rule?: string;
  messageId?: string;
  message?: unknown;
  severity?: Finding["severity"];
  status?: Finding["status"];
  file?: string | null;
  line?: number | null;
  service?: string | null;
  reason?: unknown;
  fingerprint?: unknown;
  commit?: string | null;
  data?: unknown;
  /** The raw value the report carried (never in any output; the rule must have found exactly it). */
  secret?: string;
}

export interface InvalidCase extends Case {
  findings: Expected[];
}

export interface RuleTable {
  rule: AnyRule;
  valid: Case[];
  invalid: InvalidCase[];
}

export function ruleTester(rule: AnyRule, tests: { valid: Case[]; invalid: InvalidCase[] }): RuleTable {
  return { rule, ...tests };
}

/** A finding as the tester compares it: what the user sees, the message id, and the report's secret. */
export type Actual = Finding & { messageId: string; secret?: string };

/** `data` (or any field) equal to this JSON value exactly, not as a subset. */
export function exact(value: unknown): unknown {
  return {
    $$typeof: Symbol.for("jest.asymmetricMatcher"),
    asymmetricMatch: (other: unknown) => isDeepStrictEqual(JSON.parse(JSON.stringify(other ?? null)), value),
    toAsymmetricMatcher: () => `exact(${JSON.stringify(value)})`,
  };
}

export const pack = loadPack();
export const defaultPolicy = (): Policy => policyFrom({});
const SHA = "c0ffee0000000000000000000000000000000000";

function commitOf(c: Case): CommitInfo | null {
  if (c.message === undefined && c.trailers === undefined && !c.commit) return null;
  const message = c.message ?? "change";
  return { sha: SHA, parents: [], subject: message.split("\n")[0] ?? "", message, trailers: c.trailers ?? [], author: "t" };
}

const modified = (path: string): ChangedFile => ({
  path,
  oldPath: null,
  status: "modified",
  before: "",
  after: "",
  binary: false,
  size: 0,
  addedLines: [],
});

function asActual(d: Draft): Actual {
  return { ...d.finding, messageId: d.report.message, ...(d.report.secret === undefined ? {} : { secret: d.report.secret }) };
}

/** The check context of a `files` case, its fleets read by the real loader (for tests that look inside). */
export async function contextOf(c: Case): Promise<CheckContext> {
  if (!c.files) throw new Error(`case "${c.name}" gives no files`);
  const before = c.beforeFiles === undefined ? null : c.beforeFiles;
  const after = memorySnapshot(c.files, "after");
  const policy = c.policy ?? (await policyOf(after, pack));
  const kind = c.kind ?? (before === null ? "all" : "staged");
  const b = before === null ? null : await loadFleet(memorySnapshot(before, "before"), policy, pack);
  const a = await loadFleet(after, policy, pack);
  return {
    unit: { kind, id: kind, commit: null, commits: [], files: diffFiles(before, c.files) },
    before: b?.running ?? null,
    after: a.running,
    written: { before: b?.written ?? null, after: a.written },
    policy,
    pack,
    env: c.env ?? {},
  };
}

/** Runs a case through the engine with these rules (all checks by default): every finding, sorted. */
export async function runCase(c: Case, rules: readonly AnyRule[] = CHECKS): Promise<Actual[]> {
  const checks = rules.filter(isCheck);
  const commit = commitOf(c);
  let drafts: Draft[];
  if (c.commit) {
    if (!commit) throw new Error("an audit case needs a commit");
    drafts = auditCommitDrafts({ commit, files: c.commit.files }, c.policy ?? defaultPolicy(), pack).drafts;
  } else if (c.files) {
    const before = c.beforeFiles === undefined ? null : c.beforeFiles;
    const unit: DeployUnit = {
      kind: c.kind ?? (before === null ? "all" : commit ? "commit" : "staged"),
      id: commit?.sha ?? (before === null ? "all" : "staged"),
      commit,
      commits: commit ? [commit] : [],
      before: before === null ? null : memorySnapshot(before, "before"),
      after: memorySnapshot(c.files, "after"),
      files: diffFiles(before, c.files),
      notices: [],
    };
    drafts = (
      await unitDrafts(unit, {
        mode: unit.kind,
        failOn: "error",
        pack,
        env: c.env ?? {},
        checks,
        ...(c.policy ? { policy: c.policy } : {}),
      })
    ).drafts;
  } else {
    if (!c.fleet) throw new Error(`case "${c.name}" gives no fleet, files or commit`);
    const before = c.before ?? null;
    const kind = c.kind ?? (before ? "staged" : "all");
    const changed = c.changed ?? (before ? c.fleet.services.map((s) => s.file) : []);
    const ctx: CheckContext = {
      unit: {
        kind,
        id: commit?.sha ?? kind,
        commit,
        commits: commit ? [commit] : [],
        files: changed.map((f) => (typeof f === "string" ? modified(f) : f)),
        ...(c.notices ? { notices: c.notices } : {}),
      },
      before,
      after: c.fleet,
      // A fleet built in memory has no deploy file: as written is as it runs.
      written: { before, after: c.fleet },
      policy: c.policy ?? defaultPolicy(),
      pack,
      env: c.env ?? {},
    };
    drafts = checkFleets(ctx, checks);
  }
  return runPhase("collect", drafts).map(asActual);
}

/** The rule ids a table's findings may carry: the rule's own, and its family's. */
export function idsOf(rule: AnyRule): string[] {
  return [rule.id, ...(isCheck(rule) ? (rule.family ?? []).map((r) => r.id) : [])];
}

/** The findings of the table's rules for a case (each carries the message id its report named). */
export async function findingsOf(table: RuleTable, c: Case): Promise<Actual[]> {
  const ids = new Set(idsOf(table.rule));
  return (await runCase(c, [table.rule])).filter((f) => ids.has(f.rule));
}

/** A case `npm run new:rule` scaffolded and nobody wrote yet: it fails, whatever the rule does. */
function refuseScaffold(table: RuleTable, c: Case): void {
  if (/^TODO\b/.test(c.name)) throw new Error(`${table.rule.id}: "${c.name}" is a scaffold of npm run new:rule: write the case`);
}

/** Asserts one invalid case: the same number of findings, each matching its expectation in order. */
export async function assertInvalid(table: RuleTable, c: InvalidCase): Promise<void> {
  refuseScaffold(table, c);
  const actual = await findingsOf(table, c);
  const family = isCheck(table.rule) && (table.rule.family ?? []).length > 0;
  const expected = c.findings.map((e) => (e.rule !== undefined || family ? e : { ...e, rule: table.rule.id }));
  expect(
    actual,
    JSON.stringify(
      actual.map((f) => [f.rule, f.messageId, f.file, f.line, f.message]),
      null,
      1,
    ),
  ).toHaveLength(expected.length);
  expected.forEach((e, i) => expect(actual[i]).toMatchObject(e as Record<string, unknown>));
}

export async function assertValid(table: RuleTable, c: Case): Promise<void> {
  refuseScaffold(table, c);
  expect(await findingsOf(table, c)).toEqual([]);
}
