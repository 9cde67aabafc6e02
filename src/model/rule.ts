// The one rule shape. Every rule id kvgate can report has an id, a default severity, a description and
// a map of messages; whoever raises it (a check over the fleet, the audit of a commit, the waiver
// trailers) hands the engine a Report naming a message id and its data, and the engine's finding
// pipeline renders, redacts, masks and fingerprints it the same way for all of them.
import type { Severity } from "../rules/severity.js";

/** What a message may read besides its data: where the finding points, and names the policy sets. */
export interface MessageContext {
  file: string | null;
  line: number | null;
  /** The secrets override variable (policy `secrets.override`, default ALLOW_SECRETS). */
  overrideName: string;
  /** The waiver trailer (policy `waivers.trailer`, default Kvgate-Waive). */
  waiverTrailer: string;
}

/**
 * Message builders by message id. Each declares the data shape it reads (local to its rule's file);
 * `never` as the parameter type lets a builder of any data shape sit in one map, while a caller must
 * say what it passes (the pipeline hands each builder the data of the report that named it).
 */
/** `file:line` of a message context, as a message quotes a place (`?` when it has no file). */
export function fileLine(at: Pick<MessageContext, "file" | "line">): string {
  return `${at.file ?? "?"}${at.line === null ? "" : `:${at.line}`}`;
}

export type Messages = Record<string, (data: never, at: MessageContext) => string>;

export interface RuleMeta {
  id: string;
  severity: Severity;
  description: string;
}

export interface Rule<M extends Messages = Messages> extends RuleMeta {
  messages: M;
}

/**
 * The message ids of a map. Written as a conditional type rather than `keyof M` so that TypeScript
 * compares reports (and the rules that return them) by their members: a rule with its own message map
 * then sits in a list of rules as it is, with no cast.
 */
type MessageId<M> = M extends Record<infer K, unknown> ? K & string : never;

/** What a rule reports; the engine adds the rule id, renders the message and assigns the status. */
export interface Report<M extends Messages = Messages> {
  message: MessageId<M>;
  /** Passed to the message builder and carried into the JSON `data` (bytes as integers, MiB as numbers). */
  data: Record<string, unknown>;
  file?: string | null;
  line?: number | null;
  service?: string | null;
  /** Overrides the rule's default severity (kv/yarn is an error where the seat says `yarn: forbid`). */
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
   * A fingerprint the domain computes itself (an audit row's: its rule, commit and the secret's own
   * fingerprint; a waiver's: the rule it names), used as is.
   */
  fingerprint?: string;
  /**
   * A secret value the finding is about. It never reaches any output: the pipeline replaces it
   * with its redacted form in the message and data, and the fingerprint becomes sha256:<12 hex>.
   */
  secret?: string;
}
