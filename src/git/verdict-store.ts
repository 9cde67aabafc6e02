// The verdict `kvgate check --staged` leaves for `kvgate hook prepare-commit-msg`, keyed by the staged
// change (HEAD and the staged diff: src/git/staged-key.ts, no `git write-tree`) under `git rev-parse
// --git-path kvgate` (per worktree), and found again by the index file's checksum while git has not
// rewritten the index. Plain fs: the caller passes the folder. A missing, unreadable or foreign record
// reads as null, i.e. "the gate did not run".
import { mkdirSync, readFileSync, readdirSync, renameSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** A staged key (sha1 hex) or an index checksum (its last 20 bytes, hex). */
const KEY = /^[0-9a-f]{40}$/;
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
  version: 2;
  /** The staged change it is the verdict of (src/git/staged-key.ts). */
  key: string;
  /** The index file's checksum when the run read it (null: none written). */
  index: string | null;
  /** `fail` is stored too: a later `--no-verify` commit of that change is then `not-run`, never `pass`. */
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
    hasOnly(v, ["version", "key", "index", "verdict", "at", "allowed"]) &&
    v.version === 2 &&
    typeof v.key === "string" &&
    KEY.test(v.key) &&
    (v.index === null || (typeof v.index === "string" && KEY.test(v.index))) &&
    (v.verdict === "pass" || v.verdict === "allowed" || v.verdict === "fail") &&
    typeof v.at === "string" &&
    Array.isArray(v.allowed) &&
    v.allowed.every(isAllowedSecret)
  );
}

function assertKey(key: string): void {
  if (!KEY.test(key)) throw new Error(`not a staged key: ${JSON.stringify(key)}`);
}

export function verdictFile(dir: string, key: string): string {
  assertKey(key);
  return join(dir, "verdicts", `${key}.json`);
}

/** The same record, named by the index file's checksum (the hook's lookup without a git process). */
function indexFile(dir: string, index: string): string {
  assertKey(index);
  return join(dir, "verdicts", `index-${index}.json`);
}

/** The record of one gate run over the staged change: the run's verdict and its allowed secret findings. */
export function verdictRecordOf(
  result: {
    verdict: "pass" | "fail";
    findings: readonly { rule: string; status: string; fingerprint: string; file: string | null; line: number | null }[];
  },
  key: string,
  index: string | null,
  now: Date = new Date(),
): VerdictRecord {
  assertKey(key);
  if (index !== null) assertKey(index);
  const allowed = result.findings
    .filter((f) => f.status === "allowed" && f.rule.startsWith("secret/"))
    .map((f) => ({ rule: f.rule, fingerprint: f.fingerprint, file: f.file, line: f.line }));
  // The trailer records the secret verdict: an open secret finding is a fail even when --fail-on
  // let the run pass (`--fail-on never` must not write "pass" over a landed key).
  const openSecret = result.findings.some((f) => f.status === "open" && f.rule.startsWith("secret/") && f.rule !== "secret/skipped");
  const verdict = result.verdict === "fail" || openSecret ? "fail" : allowed.length > 0 ? "allowed" : "pass";
  return { version: 2, key, index, verdict, at: now.toISOString(), allowed };
}

/** `dir` is the output of `git rev-parse --git-path kvgate`, resolved against git's working directory. */
export function saveVerdict(dir: string, record: VerdictRecord): void {
  const folder = join(dir, "verdicts");
  mkdirSync(folder, { recursive: true });
  const text = `${JSON.stringify(record, null, 2)}\n`;
  for (const file of [verdictFile(dir, record.key), ...(record.index === null ? [] : [indexFile(dir, record.index)])]) {
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, text);
    // rename is atomic, so the hook never reads half a record.
    renameSync(tmp, file);
  }
  prune(folder);
}

function readRecord(file: string, matches: (r: VerdictRecord) => boolean): VerdictRecord | null {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    return null;
  }
  try {
    const r: unknown = JSON.parse(text);
    return isVerdictRecord(r) && matches(r) ? r : null;
  } catch {
    return null;
  }
}

/** The record of this staged change (HEAD and the staged diff). */
export function loadVerdict(dir: string, key: string): VerdictRecord | null {
  return readRecord(verdictFile(dir, key), (r) => r.key === key);
}

/** The record a run left for the index file with this checksum (null: none, or git rewrote the index since). */
export function loadVerdictOfIndex(dir: string, index: string | null): VerdictRecord | null {
  return index === null ? null : readRecord(indexFile(dir, index), (r) => r.index === index);
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
