// The verdict `kvgate check --staged` leaves for `kvgate hook prepare-commit-msg`, keyed by the staged
// tree (`git write-tree`) under `git rev-parse --git-path kvgate` (per worktree). Plain fs: the caller
// passes the folder. A missing, unreadable or foreign record reads as null, i.e. "the gate did not run".
import { mkdirSync, readFileSync, readdirSync, renameSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const TREE = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/;
/** Old verdicts are pruned beyond this many: one is written per `check --staged`. */
const KEEP = 200;

interface AllowedSecret {
  rule: string;
  /** `sha256:<12 hex>` */
  fingerprint: string;
  file: string | null;
  line: number | null;
}

export interface VerdictRecord {
  version: 1;
  tree: string;
  /** `fail` is stored too: a later `--no-verify` commit of that tree is then `not-run`, never `pass`. */
  verdict: "pass" | "allowed" | "fail";
  at: string;
  allowed: AllowedSecret[];
}

// Checked by hand, not by a zod schema: the prepare-commit-msg hook reads a record on every commit
// from the small hook bundle (dist/fast.cjs), which would otherwise load zod for these five fields.
const hasOnly = (v: object, keys: readonly string[]): boolean => Object.keys(v).every((k) => keys.includes(k));
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

function isAllowedSecret(v: unknown): v is AllowedSecret {
  return (
    isObject(v) &&
    hasOnly(v, ["rule", "fingerprint", "file", "line"]) &&
    typeof v.rule === "string" &&
    typeof v.fingerprint === "string" &&
    /^sha256:[0-9a-f]{12}$/.test(v.fingerprint) &&
    (v.file === null || typeof v.file === "string") &&
    (v.line === null || Number.isInteger(v.line))
  );
}

/** A stored record as written by saveVerdict (strict: an unknown field makes it foreign). */
function isVerdictRecord(v: unknown): v is VerdictRecord {
  return (
    isObject(v) &&
    hasOnly(v, ["version", "tree", "verdict", "at", "allowed"]) &&
    v.version === 1 &&
    typeof v.tree === "string" &&
    TREE.test(v.tree) &&
    (v.verdict === "pass" || v.verdict === "allowed" || v.verdict === "fail") &&
    typeof v.at === "string" &&
    Array.isArray(v.allowed) &&
    v.allowed.every(isAllowedSecret)
  );
}

function assertTree(tree: string): void {
  if (!TREE.test(tree)) throw new Error(`not a tree hash: ${JSON.stringify(tree)}`);
}

export function verdictFile(dir: string, tree: string): string {
  assertTree(tree);
  return join(dir, "verdicts", `${tree}.json`);
}

/** The record of one gate run over the staged tree: the run's verdict and its allowed secret findings. */
export function verdictRecordOf(
  result: {
    verdict: "pass" | "fail";
    findings: readonly { rule: string; status: string; fingerprint: string; file: string | null; line: number | null }[];
  },
  tree: string,
  now: Date = new Date(),
): VerdictRecord {
  assertTree(tree);
  const allowed = result.findings
    .filter((f) => f.status === "allowed" && f.rule.startsWith("secret/"))
    .map((f) => ({ rule: f.rule, fingerprint: f.fingerprint, file: f.file, line: f.line }));
  // The trailer records the secret verdict: an open secret finding is a fail even when --fail-on
  // let the run pass (`--fail-on never` must not write "pass" over a landed key).
  const openSecret = result.findings.some((f) => f.status === "open" && f.rule.startsWith("secret/") && f.rule !== "secret/skipped");
  const verdict = result.verdict === "fail" || openSecret ? "fail" : allowed.length > 0 ? "allowed" : "pass";
  return { version: 1, tree, verdict, at: now.toISOString(), allowed };
}

/** `dir` is the output of `git rev-parse --git-path kvgate`, resolved against git's working directory. */
export function saveVerdict(dir: string, tree: string, record: VerdictRecord): void {
  const file = verdictFile(dir, tree);
  const folder = join(dir, "verdicts");
  mkdirSync(folder, { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify({ ...record, tree }, null, 2)}\n`);
  // rename is atomic, so the hook never reads half a record.
  renameSync(tmp, file);
  prune(folder);
}

export function loadVerdict(dir: string, tree: string): VerdictRecord | null {
  let text: string;
  try {
    text = readFileSync(verdictFile(dir, tree), "utf8");
  } catch {
    return null;
  }
  try {
    const r: unknown = JSON.parse(text);
    return isVerdictRecord(r) && r.tree === tree ? r : null;
  } catch {
    return null;
  }
}

function prune(folder: string): void {
  try {
    const files = readdirSync(folder).filter((f) => f.endsWith(".json"));
    if (files.length <= KEEP) return;
    const byAge = files.map((f) => ({ f, t: statSync(join(folder, f)).mtimeMs })).sort((a, b) => b.t - a.t);
    for (const { f } of byAge.slice(KEEP)) unlinkSync(join(folder, f));
  } catch {
    // Pruning is housekeeping; a race with another run must not fail the gate.
  }
}
