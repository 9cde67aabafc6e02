// A rule is one small module of src/checks/, named by its id (`kv/covers-context` →
// kv-covers-context.ts): its id, default severity, description and messages. A check adds a pure `run`
// over the model; it touches no git, fs or @actions/core. A rule raised by a command instead (the
// audit, the waiver trailers) says which. The engine turns every report into a finding in one
// pipeline (src/engine/pipeline.ts).
import type { FleetState } from "../model/types.js";
import type { Messages, Report, Rule, RuleMeta } from "../model/rule.js";
import type { Policy } from "../config/policy.js";
import type { ChangedFile, ChangeNotice, CommitInfo, UnitKind } from "../git/types.js";
import type { RulesPack } from "../rules/pack.js";
import type { IgnoreList } from "../secrets/ignore.js";

export type { Messages, Report, RuleMeta } from "../model/rule.js";

/** The deploy unit a check sees: what changed, and the fleet on each side of it. */
export interface CheckContext {
  unit: {
    kind: UnitKind;
    /** `staged`, a sha, `A..B`, or `all`. */
    id: string;
    /** The commit being checked, for commit units. */
    commit: CommitInfo | null;
    /** The change edits the gate's policy: checked as the whole tree (every finding reported). */
    policyChange?: boolean;
    commits: CommitInfo[];
    /**
     * The files the change touched. Under `--all` the tree is not held whole: a check sees the
     * fleet's files (src/load/fleet-globs.ts fleetChangeGlobs), and a check that reads every file
     * (`scanFiles`) is handed the whole tree a chunk at a time instead.
     */
    files: ChangedFile[];
    /** Paths the change (or the tree, under `--all`) holds that were not read: a symlink, a submodule. */
    notices?: readonly ChangeNotice[];
  };
  /** The fleet as it runs before the change (src/load/running.ts); null under `--all` (there is no before). */
  before: FleetState | null;
  /** The fleet as it runs after the change: what the sizing rules judge. */
  after: FleetState;
  /** The same two sides as their files say them, before any deploy file is laid over: what a rule about
   *  the files themselves reads (a playbook's drift from its env file, a glob that stopped matching). */
  written: { before: FleetState | null; after: FleetState };
  policy: Policy;
  pack: RulesPack;
  /** The process environment the gate runs in (only the override variable is read from it). */
  env: Readonly<Record<string, string | undefined>>;
  /** `.kvgateignore`, read from where the policy comes from (absent: nothing is ignored). */
  ignore?: IgnoreList;
  /**
   * The before side read under its own kvgate.yaml, given only when that file's services glob differs
   * from the run's policy: a change that narrows the glob drops seats no other side shows. Its fleet
   * is the written face.
   */
  beforeOwn?: { services: string; fleet: FleetState };
}

export interface Check<M extends Messages = Messages> extends Rule<M> {
  run(ctx: CheckContext): Report<M>[];
  /** Further rule ids the check reports through Report.rule (secret-scan: one per detector). */
  family?: readonly RuleMeta[];
  /**
   * For a check whose reports on a file need that file alone (the secret scan): a scan over one
   * context that is handed the files in chunks, so `--all` never holds the whole tree. `run` must
   * report what one scan given `ctx.unit.files` whole reports.
   */
  scanFiles?: (ctx: CheckContext) => FileScan<M>;
}

/** One scan of a context's files: `files` per chunk, in order, then `finish` for what needs them all seen. */
export interface FileScan<M extends Messages = Messages> {
  files(files: readonly ChangedFile[]): Report<M>[];
  finish(): Report<M>[];
}

/** A rule no check's run raises: the audit of a commit, or the engine reading the waiver trailers. */
export interface RaisedRule<M extends Messages = Messages> extends Rule<M> {
  raisedBy: "audit" | "waivers";
}

/** Rules of any message map, as the registry holds them. */
export type AnyCheck = Check;
export type AnyRule = Check | RaisedRule;

/** Identity helpers that keep each rule's message ids typed. */
export function defineCheck<M extends Messages>(check: Check<M>): Check<M> {
  return check;
}

export function defineRule<M extends Messages>(rule: RaisedRule<M>): RaisedRule<M> {
  return rule;
}

export function isCheck(rule: AnyRule): rule is AnyCheck {
  return "run" in rule;
}
