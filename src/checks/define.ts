// A check is one small module: its id, default severity, description and messages beside a pure
// `run` over the model. It touches no git, fs or @actions/core; the engine turns its reports into
// findings (message text, status, fingerprint, redaction) in one post-processing pipeline.
import type { FleetState, Severity } from "../model/types.js";
import type { Policy } from "../config/policy.js";
import type { ChangedFile, CommitInfo, UnitKind } from "../git/types.js";
import type { RulesPack } from "../rules/pack.js";

// Message builders take the report's data; `any` keeps each check's data shape local to its file.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Messages = Record<string, (data: any) => string>;

/** The deploy unit a check sees: what changed, and the fleet on each side of it. */
export interface CheckContext {
  unit: {
    kind: UnitKind;
    /** `staged`, a sha, `A..B`, or `all`. */
    id: string;
    /** The commit being checked, for commit units. */
    commit: CommitInfo | null;
    commits: CommitInfo[];
    files: ChangedFile[];
  };
  /** null under `--all` (there is no before). */
  before: FleetState | null;
  after: FleetState;
  policy: Policy;
  pack: RulesPack;
  /** The process environment the gate runs in (only the override variable is read from it). */
  env: Readonly<Record<string, string | undefined>>;
}

/** What a check reports; the engine adds the rule id, renders the message and assigns the status. */
export interface Report<M extends Messages = Messages> {
  message: keyof M & string;
  /** Passed to the message builder and carried into the JSON `data` (bytes as integers, MiB as numbers). */
  data: Record<string, unknown>;
  file?: string | null;
  line?: number | null;
  service?: string | null;
  /** Overrides the check's default severity (kv/yarn is an error where the seat says `yarn: forbid`). */
  severity?: Severity;
  /** `exempt`: an owner-pinned exception or a placeholder; the finding is reported, not failing. */
  status?: "exempt" | "allowed";
  /** Why it is exempt or allowed. */
  reason?: string;
  /** For checks that report a family of rules (secret/<detector>): the rule id; must be registered. */
  rule?: string;
  /** Identity beyond rule/file/service/message, for the fingerprint (e.g. the setting name). */
  key?: string;
  /**
   * A secret value the finding is about. It never reaches any output: the pipeline replaces it
   * with its redacted form in the message and data, and the fingerprint becomes sha256:<12 hex>.
   */
  secret?: string;
}

export interface RuleMeta {
  id: string;
  severity: Severity;
  description: string;
}

export interface Check<M extends Messages = Messages> extends RuleMeta {
  messages: M;
  run(ctx: CheckContext): Report<M>[];
}

/** A check of any message map, as the registry holds them. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyCheck = Check<any>;

/** Identity helper that keeps each check's message ids typed. */
export function defineCheck<M extends Messages>(check: Check<M>): Check<M> {
  return check;
}
