// `.kvgateignore` (docs/secrets.md#kvgateignore): the reviewed way to accept a known value. One fingerprint a
// line, as kvgate prints it (`sha256:<12 hex>`), then optionally `# reason`, where `@owner` and
// `until YYYY-MM-DD` may appear. An entry names a value, never a path or a line, so moving a line or a
// file never churns it (detect-secrets' baselines churn on every line move). Pure: the engine reads
// the file from the same place as the policy.

export const IGNORE_FILE = ".kvgateignore";

export interface IgnoreEntry {
  fingerprint: string;
  /** The text after `#`, trimmed ("" when none). */
  reason: string;
  owner: string | null;
  /** `YYYY-MM-DD`: the last day the entry exempts; null: no expiry. */
  until: string | null;
  /** 1-based line in .kvgateignore. */
  line: number;
}

interface IgnoreProblem {
  line: number;
  /** What is wrong with the line, and the line's shape that would be right. */
  problem: string;
  /** The fingerprint the line names, when it names one (its value is then not exempt). */
  fingerprint?: string;
}

export interface IgnoreList {
  entries: IgnoreEntry[];
  problems: IgnoreProblem[];
  /** `YYYY-MM-DD` the run compares expiry dates to (UTC). */
  today: string;
}

const FINGERPRINT = /^sha256:[0-9a-f]{12}$/;
/** The one accepted form of a line (docs/secrets.md#kvgateignore), quoted by every problem. */
export const IGNORE_SHAPE = "sha256:<12 hex> # reason @owner until YYYY-MM-DD";
const SHAPE = `a line is \`${IGNORE_SHAPE}\` (reason, owner and expiry optional; the expiry exactly \`until YYYY-MM-DD\`)`;
/** The expiry as the grammar writes it: the word `until`, one space, a date, as a word of its own. */
const UNTIL = /(?<=^|\s)until (\d{4}-\d{2}-\d{2})(?=\s|$)/g;
/**
 * Anything else that reads as an expiry: the word until in any case or spelling (`Until:`,
 * `until=`, `UNTIL`), an expiry word before a number (`expires 2027-01-01`, `exp: 2027`), a date.
 */
const OTHER_EXPIRY =
  /\buntil\b|\bexpir\w*\s*(?:[:=]|on\b)?\s*\d|\bexp\s*[:=]|\b\d{4}[-/.]\d{1,2}[-/.]\d{1,2}\b|\b\d{1,2}[-/]\d{1,2}[-/]\d{2,4}\b|\b\d{1,2}\.\d{1,2}\.\d{4}\b/i;
const OWNER = /(?:^|\s)@([A-Za-z0-9][\w.-]*(?:\/[\w.-]+)?)/;

function validDate(s: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
  if (!m) return false;
  const d = new Date(`${s}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === s;
}

/** At most 40 characters of a line's piece, to quote in a problem (a raw value never whole). */
const quote = (s: string): string => JSON.stringify(s.length > 40 ? `${s.slice(0, 37)}...` : s);

/** The expiry of a reason, or the problem with it. */
function expiryOf(reason: string): { until: string | null } | { problem: string } {
  const forms = [...reason.matchAll(UNTIL)];
  if (forms.length > 1) return { problem: `the reason gives ${forms.length} expiries: keep one \`until YYYY-MM-DD\` (${SHAPE})` };
  const date = forms[0]?.[1] ?? null;
  if (date !== null && !validDate(date)) return { problem: `"until ${date}" is not a date: write until YYYY-MM-DD (${SHAPE})` };
  const other = OTHER_EXPIRY.exec(reason.replace(UNTIL, ""));
  if (other) {
    const at = other.index;
    const piece = reason
      .replace(UNTIL, "")
      .slice(at, at + 24)
      .trim();
    return { problem: `${quote(piece)} reads as an expiry but is not written \`until YYYY-MM-DD\`, so it would never expire: ${SHAPE}` };
  }
  return { until: date };
}

export function parseIgnore(text: string, today: string): IgnoreList {
  const entries: IgnoreEntry[] = [];
  const problems: IgnoreProblem[] = [];
  text.split("\n").forEach((rawLine, k) => {
    const line = k + 1;
    const t = rawLine.replace(/\r$/, "").trim();
    if (t === "" || t.startsWith("#")) return;
    const hash = t.indexOf("#");
    const head = (hash < 0 ? t : t.slice(0, hash)).trim();
    const reason = hash < 0 ? "" : t.slice(hash + 1).trim();
    if (!FINGERPRINT.test(head)) {
      problems.push({ line, problem: `${quote(head)} is not a fingerprint as kvgate prints it: ${SHAPE}` });
      return;
    }
    const expiry = expiryOf(reason);
    if ("problem" in expiry) {
      problems.push({ line, problem: expiry.problem, fingerprint: head });
      return;
    }
    const owner = OWNER.exec(reason)?.[1] ?? null;
    entries.push({ fingerprint: head, reason, owner, until: expiry.until, line });
  });
  return { entries, problems, today };
}

/** The problem of the line that names this fingerprint but is not valid, if any. */
export function ignoreProblemOf(list: IgnoreList, fingerprint: string): IgnoreProblem | undefined {
  return list.problems.find((p) => p.fingerprint === fingerprint);
}

/** The entry naming this fingerprint (the first, when listed twice). */
export function ignoreEntryOf(list: IgnoreList, fingerprint: string): IgnoreEntry | undefined {
  return list.entries.find((e) => e.fingerprint === fingerprint);
}

/** An entry whose `until` day is over no longer exempts. */
export function isExpired(entry: IgnoreEntry, today: string): boolean {
  return entry.until !== null && entry.until < today;
}

export function todayUtc(now: Date = new Date()): string {
  return now.toISOString().slice(0, 10);
}
