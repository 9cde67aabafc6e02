// secret/<detector>: secrets in the added lines of the change (every line under --all). Reports one
// rule per detector through Report.rule; the raw value travels only in Report.secret, which the
// engine's pipeline redacts before anything is printed. The family's rule ids are read from
// rules/secrets.yaml, so adding a detector there registers its rule.
import picomatch from "picomatch";
import { defineCheck, type CheckContext, type FileScan, type Report, type RuleMeta } from "./define.js";
import type { ChangedFile } from "../git/types.js";
import { builtinDetectors } from "../rules/detectors.js";
import { keywordSieve, scanLines, scanStream, type SecretMatch } from "../secrets/scan.js";
import { decodedMatches } from "../secrets/decoded.js";
import { placeholderFilter, type PlaceholderHit } from "../secrets/placeholders.js";
import { redactSecret, secretFingerprint } from "../secrets/redact.js";
import { IGNORE_FILE, IGNORE_SHAPE, ignoreEntryOf, ignoreProblemOf, isExpired, type IgnoreEntry } from "../secrets/ignore.js";
const SKIPPED_RULE = "secret/skipped";
const UNSCANNED_RULE = "secret/unscanned";
const IGNORE_UNUSED_RULE = "secret/ignore-unused";
const IGNORE_INVALID_RULE = "secret/ignore-invalid";

function placeholderReason(hit: PlaceholderHit): string {
  const what =
    hit.kind === "value"
      ? "a listed placeholder value"
      : hit.kind === "example-signature"
        ? "a token signed with a published example key (rules/secrets.yaml jwt_signing_keys): anyone can mint it"
        : `fully matched by placeholder pattern ${hit.pattern ?? ""}`;
  return `the value is ${what} (${hit.source}); placeholders are exempt wherever they appear`;
}

const family: RuleMeta[] = [
  ...builtinDetectors().detectors.map((d): RuleMeta => ({
    id: d.rule,
    severity: d.severity,
    description: `${/^[AEIOU]/.test(d.title) ? "An" : "A"} ${d.title} in the change (placeholders listed in rules/secrets.yaml or kvgate.yaml are exempt).`,
  })),
  { id: SKIPPED_RULE, severity: "notice", description: "A file not scanned for secrets: binary, or excluded by secrets.exclude." },
  {
    id: IGNORE_UNUSED_RULE,
    severity: "notice",
    description:
      "A .kvgateignore entry that matches no value in the tree (reported under --all): the value is gone, so the entry can go too.",
  },
  {
    id: IGNORE_INVALID_RULE,
    severity: "error",
    description:
      `A .kvgateignore line that is not \`${IGNORE_SHAPE}\`: a bad fingerprint, a date ` +
      `that does not exist, or an expiry written any other way (\`Until:\`, \`until=\`, ` +
      `\`expires …\`, a bare date). It exempts nothing: fix it to the accepted form.`,
  },
  {
    id: UNSCANNED_RULE,
    severity: "error",
    description:
      "A text file that could not be scanned for secrets (a failed read of a big file streamed from git): the gate refuses rather than pass it unseen.",
  },
];

/** Why a .kvgateignore entry does not exempt the value (expired, or not valid), for the finding's message. */
const expiredNote = (d: { ignore_until?: string; ignore_line?: number; ignore_invalid_line?: number }): string =>
  d.ignore_until
    ? ` (its ${IGNORE_FILE} entry at line ${d.ignore_line ?? "?"} expired after ${d.ignore_until}: review the value and renew the date, or rotate it)`
    : d.ignore_invalid_line
      ? ` (its ${IGNORE_FILE} line ${d.ignore_invalid_line} is not valid, so it exempts nothing: write it as \`${IGNORE_SHAPE}\`)`
      : "";

/** How the value was read, when not as the line stands (joined to the line before, decoded). */
const viaNote = (d: { via?: string }): string => (d.via ? ` (${d.via})` : "");

const messages = {
  found: (d: {
    title: string;
    redacted: string;
    column: number;
    via?: string;
    ignore_until?: string;
    ignore_line?: number;
    ignore_invalid_line?: number;
    decoded_from?: string;
  }) =>
    `${d.title} ${d.redacted}${viaNote(d)} (column ` +
    `${d.column}${d.decoded_from ? `, base64 of a Secret's ${d.decoded_from}, decoded` : ""}): remove it from the change and ` +
    `rotate it; read it from a vault or the environment instead. If it is an inert example, ` +
    `list the whole value under secrets.placeholders in kvgate.yaml${expiredNote(d)}`,
  ignored: (d: { title: string; redacted: string; ignore_line: number }) =>
    `${d.title} ${d.redacted} is accepted by ${IGNORE_FILE} line ${d.ignore_line}`,
  ignoreUnused: (d: { fingerprint: string }) =>
    `${IGNORE_FILE} lists ${d.fingerprint}, which no file in the tree holds any more: remove the line`,
  ignoreInvalid: (d: { problem: string }) => `${IGNORE_FILE}: ${d.problem}`,
  placeholder: (d: { title: string; redacted: string }) => `${d.title} ${d.redacted} is a known placeholder, not a secret`,
  allowed: (d: {
    title: string;
    redacted: string;
    override: string;
    via?: string;
    ignore_until?: string;
    ignore_line?: number;
    ignore_invalid_line?: number;
  }) =>
    `${d.title} ${d.redacted}${viaNote(d)}${expiredNote(d)} let through by ${d.override}=1: ` +
    `the commit records it in a Kvgate-Allowed-Secret trailer; rotate it if it is real`,
  skipped: (d: { why: string }) => `not scanned for secrets: ${d.why}`,
  unscanned: (d: { why: string }) =>
    `could not be scanned for secrets (${d.why}), so the gate cannot ` +
    `pass it: retry with free space in the temp folder, or list the file ` +
    `under secrets.exclude in kvgate.yaml if it must not be scanned`,
};

/** secrets.exclude compiled once per policy (an audit runs this check once per commit of a history). */
const compiledExcludes = new WeakMap<readonly string[], { glob: string; test: (path: string) => boolean }[]>();

function excludeMatchers(globs: readonly string[]): { glob: string; test: (path: string) => boolean }[] {
  let out = compiledExcludes.get(globs);
  if (!out) {
    out = globs.map((g) => ({ glob: g, test: picomatch(g, { dot: true }) }));
    compiledExcludes.set(globs, out);
  }
  return out;
}

export const secretScan = defineCheck({
  id: "secret/scan",
  severity: "error",
  description: "Secrets (API keys, tokens, private keys, high-entropy passwords) in the added lines of a change.",
  messages,
  family,
  run(ctx) {
    const scan = secretScanOf(ctx);
    return [...scan.files(ctx.unit.files), ...scan.finish()];
  },
  scanFiles: (ctx) => secretScanOf(ctx),
});

/**
 * One scan over a context: every file handed to `files` (in chunks under --all), then `finish` for
 * the .kvgateignore reports, which need every file seen (an entry is unused only if none held it).
 */
function secretScanOf(ctx: CheckContext): FileScan<typeof messages> {
  const set = ctx.pack.detectors();
  const filter = placeholderFilter(set.placeholders, ctx.policy.secrets.placeholders);
  const overrideName = ctx.policy.secrets.override;
  const override = ctx.env[overrideName] === "1";
  const excludes = excludeMatchers(ctx.policy.secrets.exclude);
  const ignore = ctx.ignore;
  const used = new Set<IgnoreEntry>();
  let ignoreTouched = false;
  const files = (chunk: readonly ChangedFile[]): Report<typeof messages>[] => {
    const reports: Report<typeof messages>[] = [];
    for (const file of chunk) {
      if (file.path === IGNORE_FILE) ignoreTouched = true;
      if (file.status === "deleted") continue;
      const excluded = excludes.find((x) => x.test(file.path));
      const skip = (why: string, extra: Record<string, unknown>): void => {
        reports.push({ rule: SKIPPED_RULE, severity: "notice", message: "skipped", data: { why, ...extra }, file: file.path, line: null });
      };
      if (excluded) {
        skip(`excluded by secrets.exclude ${excluded.glob}`, { reason: "excluded", glob: excluded.glob });
        continue;
      }
      if (file.binary) {
        // An audit's binary file has no size (git says it is binary; no lookup per file).
        skip("binary file", { reason: "binary", ...(file.size === null ? {} : { size_bytes: file.size }) });
        continue;
      }
      // A big file is streamed (docs/secrets.md: no size cliff); a stream that breaks is an error.
      let matches: Iterable<SecretMatch>;
      if (file.streamedLines) {
        try {
          matches = [...scanStream(file.streamedLines(keywordSieve(set) ?? undefined), set)];
        } catch (e) {
          const why = (e as Error).message;
          reports.push({
            rule: UNSCANNED_RULE,
            severity: "error",
            message: "unscanned",
            data: { why, size_bytes: file.size },
            file: file.path,
            line: null,
          });
          continue;
        }
      } else matches = [...scanLines(file.addedLines, set), ...decodedMatches(file, set)];
      for (const m of matches) {
        const d = m.detector;
        const fingerprint = secretFingerprint(m.value);
        const invalid = ignore ? ignoreProblemOf(ignore, fingerprint) : undefined;
        const found = {
          detector: d.id,
          title: d.title,
          redacted: redactSecret(m.value),
          column: m.column,
          length: m.value.length,
          override: overrideName,
          ...(m.via ? { via: m.via } : {}),
          ...(invalid ? { ignore_invalid_line: invalid.line } : {}),
          // A Kubernetes Secret's base64 value, decoded (src/secrets/decoded.ts).
          ...("decoded" in m ? { decoded_from: m.decoded } : {}),
        };
        const base = { rule: d.rule, file: file.path, line: m.line, secret: m.value, key: `${d.id}:${m.column}` };
        const hit = filter.match(m.value);
        const entry = hit || !ignore ? undefined : ignoreEntryOf(ignore, fingerprint);
        if (entry) used.add(entry);
        const expired = entry !== undefined && ignore !== undefined && isExpired(entry, ignore.today);
        const data = expired && entry ? { ...found, ignore_line: entry.line, ignore_until: entry.until ?? "" } : found;
        if (hit) {
          reports.push({
            ...base,
            message: "placeholder",
            data: { ...data, placeholder_source: hit.source },
            severity: "notice",
            status: "exempt",
            reason: placeholderReason(hit),
          });
        } else if (entry && !expired) {
          const who = [entry.owner ? `@${entry.owner}` : null, entry.until ? `until ${entry.until}` : null].filter((x) => x !== null);
          reports.push({
            ...base,
            message: "ignored",
            data: { ...data, ignore_line: entry.line, ignore_owner: entry.owner, ignore_until: entry.until },
            severity: "notice",
            status: "exempt",
            reason: entry.reason !== "" ? entry.reason : `listed in ${IGNORE_FILE}${who.length > 0 ? ` (${who.join(", ")})` : ""}`,
          });
        } else if (override) {
          reports.push({
            ...base,
            message: "allowed",
            data,
            severity: d.severity,
            status: "allowed",
            reason: `allowed by ${overrideName}=1: this must be recorded (Kvgate-Allowed-Secret trailer) and the key rotated if it is real`,
          });
        } else {
          reports.push({ ...base, message: "found", data, severity: d.severity });
        }
      }
    }
    return reports;
  };
  const finish = (): Report<typeof messages>[] => {
    const reports: Report<typeof messages>[] = [];
    if (ignore) {
      // The file's own problems are reported where they can be fixed: when it changes, and under --all.
      const touched = ctx.unit.kind === "all" || ctx.unit.policyChange === true || ignoreTouched;
      if (touched) {
        for (const p of ignore.problems) {
          reports.push({
            rule: IGNORE_INVALID_RULE,
            severity: "error",
            message: "ignoreInvalid",
            data: { problem: p.problem },
            file: IGNORE_FILE,
            line: p.line,
          });
        }
      }
      if (ctx.unit.kind === "all" || ctx.unit.policyChange) {
        for (const e of ignore.entries.filter((x) => !used.has(x))) {
          reports.push({
            rule: IGNORE_UNUSED_RULE,
            severity: "notice",
            message: "ignoreUnused",
            data: { fingerprint: e.fingerprint },
            file: IGNORE_FILE,
            line: e.line,
            key: e.fingerprint,
          });
        }
      }
    }
    return reports;
  };
  return { files, finish };
}
