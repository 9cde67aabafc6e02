// kvgate audit --range A..B: re-checks every landing, above all those that used the override.
import { parse, oneOf } from "../args.js";
import { UsageError } from "../../errors.js";
import { emit } from "../io.js";
import { loadPack, policyFromFile, repoDirOf } from "../context.js";
import { openRepo } from "../../git/index.js";
import { policyOf } from "../../load/config.js";
import { auditResult, auditCommit, type AuditRow } from "../../engine/audit.js";
import { formatAuditJson, formatAuditText } from "../../report/audit.js";
import { useColor } from "../../report/color.js";
import { progress } from "../progress.js";

const AUDIT_USAGE = "usage: kvgate audit --range A..B [--repo DIR] [--config FILE] [--format text|json] [--output FILE]";

const OPTIONS = { range: { type: "string" }, repo: { type: "string" }, format: { type: "string" }, config: { type: "string" }, output: { type: "string" } } as const;

export async function auditCommand(argv: string[]): Promise<number> {
  let values;
  try {
    values = parse(argv, OPTIONS, 0).values;
    if (values.range === undefined) throw new UsageError("audit needs --range A..B");
    if (!/^[^.\s][^\s]*\.\.\.?[^\s]+$/.test(values.range)) throw new UsageError(`--range takes A..B (got "${values.range}")`);
    oneOf("format", values.format, ["text", "json"] as const, "text");
  } catch (e) {
    throw e instanceof UsageError ? new UsageError(e.message, AUDIT_USAGE) : e;
  }
  const range = values.range;
  const format = oneOf("format", values.format, ["text", "json"] as const, "text");
  const pack = loadPack();
  const repo = await openRepo(await repoDirOf(values.repo));
  // The current policy: --config, else the working tree's kvgate.yaml.
  const policy = policyFromFile(values.config, pack) ?? (await policyOf(await repo.snapshot("worktree"), pack));
  // One git log for the whole range; only the added lines are read, never whole blobs.
  const total = process.stderr.isTTY ? (await repo.commitsInRange(range)).length : 0;
  const bar = progress(process.stderr, total, "auditing");
  const rows: AuditRow[] = [];
  for await (const c of repo.addedLinesInRange(range)) {
    rows.push(auditCommit(c, policy, pack));
    bar.tick();
  }
  bar.done();
  const result = auditResult(range, rows);
  emit(format === "json" ? formatAuditJson(result) : formatAuditText(result, { color: values.output === undefined && useColor(process.stdout, process.env) }), values.output);
  return result.verdict === "fail" ? 1 : 0;
}
