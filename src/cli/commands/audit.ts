// kvgate audit --range A..B: re-checks every landing, above all those that used the override.
import { parse, oneOf } from "../args.js";
import { UsageError } from "../../errors.js";
import { emit } from "../io.js";
import { loadPack, policyFromFile, repoDirOf } from "../context.js";
import { openRepo } from "../../git/index.js";
import type { Shard } from "../../git/index.js";
import { policyOf } from "../../load/config.js";
import { auditResult, createAuditor, type AuditRow } from "../../engine/audit.js";
import { ignoreOf } from "../../engine/run.js";
import { formatAuditJson, formatAuditText } from "../../report/audit.js";
import { useColor } from "../../report/color.js";
import { progress } from "../progress.js";
import { keywordSieve } from "../../secrets/scan.js";

const AUDIT_USAGE = "usage: kvgate audit --range A..B [--shard I/N] [--repo DIR] [--config FILE] [--format text|json] [--output FILE]";

const OPTIONS = {
  range: { type: "string" },
  shard: { type: "string" },
  repo: { type: "string" },
  format: { type: "string" },
  config: { type: "string" },
  output: { type: "string" },
} as const;

/** `--shard I/N`: this job audits the I-th of N contiguous blocks of the range (a CI matrix). */
export function parseShard(text: string | undefined): Shard | undefined {
  if (text === undefined) return undefined;
  const m = /^(\d{1,6})\/(\d{1,6})$/.exec(text.trim());
  const index = Number(m?.[1]);
  const count = Number(m?.[2]);
  if (!m || count < 1 || index < 1 || index > count) {
    throw new UsageError(`--shard takes I/N with 1 <= I <= N, e.g. --shard 2/4 (got "${text}")`);
  }
  return { index, count };
}

export async function auditCommand(argv: string[]): Promise<number> {
  let values;
  try {
    values = parse(argv, OPTIONS, 0).values;
    if (values.range === undefined) throw new UsageError("audit needs --range A..B");
    if (!/^[^.\s][^\s]*\.\.\.?[^\s]+$/.test(values.range)) throw new UsageError(`--range takes A..B (got "${values.range}")`);
    oneOf("format", values.format, ["text", "json"] as const, "text");
    parseShard(values.shard);
  } catch (e) {
    throw e instanceof UsageError ? new UsageError(e.message, AUDIT_USAGE) : e;
  }
  const range = values.range;
  const shard = parseShard(values.shard);
  const format = oneOf("format", values.format, ["text", "json"] as const, "text");
  const pack = loadPack();
  const repo = await openRepo(await repoDirOf(values.repo));
  // One git log for the whole range; only the added lines are read, never whole blobs. It starts
  // now, so git walks the range and writes the first diffs while the policy below is parsed; its
  // errors (a bad range) are still reported after the policy's, as they were.
  // Read through the secret scan's sieve: only the added lines that may hold a secret are decoded.
  const commits = repo.addedLinesInRange(range, shard, keywordSieve(pack.detectors()))[Symbol.asyncIterator]();
  const first = commits.next();
  first.catch(() => undefined); // awaited in the loop below
  const rows: AuditRow[] = [];
  try {
    // The current policy: --config, else the working tree's kvgate.yaml.
    const worktree = await repo.snapshot("worktree");
    const policy = policyFromFile(values.config, pack) ?? (await policyOf(worktree, pack));
    const ignore = await ignoreOf(worktree);
    const total = process.stderr.isTTY && !shard ? (await repo.commitsInRange(range)).length : 0;
    const bar = progress(process.stderr, total, "auditing");
    const audit = createAuditor(policy, pack, ignore);
    for (let next = await first; next.done !== true; next = await commits.next()) {
      rows.push(audit(next.value).row);
      bar.tick();
    }
    bar.done();
  } finally {
    // Stopped early (a bad policy, a failed commit): the rest of the log is not read, and git is ended.
    await commits.return?.(undefined);
  }
  const result = auditResult(shard ? `${range} (shard ${shard.index}/${shard.count})` : range, rows);
  emit(
    format === "json"
      ? formatAuditJson(result)
      : formatAuditText(result, { color: values.output === undefined && useColor(process.stdout, process.env) }),
    values.output,
  );
  return result.verdict === "fail" ? 1 : 0;
}
