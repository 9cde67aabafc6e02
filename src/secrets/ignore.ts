// `.kvgateignore` (contract section 15): the reviewed way to accept a known value. One fingerprint a
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
}

export interface IgnoreList {
  entries: IgnoreEntry[];
  problems: IgnoreProblem[];
  /** `YYYY-MM-DD` the run compares expiry dates to (UTC). */
  today: string;
}

const FINGERPRINT = /^sha256:[0-9a-f]{12}$/;
const SHAPE = "a line is `sha256:<12 hex> # reason @owner until YYYY-MM-DD` (reason, owner and date optional)";

function validDate(s: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
  if (!m) return false;
  const d = new Date(`${s}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === s;
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
      problems.push({ line, problem: `"${head.slice(0, 40)}" is not a fingerprint as kvgate prints it: ${SHAPE}` });
      return;
    }
    const untilWord = /\buntil\s+(\S+)/i.exec(reason);
    const until = untilWord?.[1] ?? null;
    if (until !== null && !validDate(until)) {
      problems.push({ line, problem: `"until ${until}" is not a date: write until YYYY-MM-DD (${SHAPE})` });
      return;
    }
    const owner = /(?:^|\s)@([A-Za-z0-9][\w.-]*(?:\/[\w.-]+)?)/.exec(reason)?.[1] ?? null;
    entries.push({ fingerprint: head, reason, owner, until, line });
  });
  return { entries, problems, today };
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
