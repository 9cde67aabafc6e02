// kvgate audit --range A..B: re-checks every landing, above all those that used the override.
import { parse, oneOf } from "../args.js";
import { UsageError } from "../../errors.js";
import { emit } from "../io.js";
import { loadPack, policyFromFile, repoDirOf } from "../context.js";
import type { Shard } from "../../git/index.js";
import { openRepo, runAudit } from "../../engine/api.js";
import { formatAuditJson, formatAuditText } from "../../report/audit.js";
import { useColor } from "../../report/color.js";
import { progress } from "../progress.js";

const AUDIT_USAGE = "usage: kvgate audit --range A..B|REV [--shard I/N] [--repo DIR] [--config FILE] [--format text|json] [--output FILE]";

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
    // A..B, A...B, or one revision (HEAD: the whole history it reaches, root commit included).
    if (!/^[^.\s-][^\s]*\.\.\.?[^\s]+$/.test(values.range) && !/^[^.\s-][^\s]*$/.test(values.range))
      throw new UsageError(`--range takes A..B, or one revision for its whole history (got "${values.range}")`);
    oneOf("format", values.format, ["text", "json"] as const, "text");
    parseShard(values.shard);
  } catch (e) {
    throw e instanceof UsageError ? new UsageError(e.message, AUDIT_USAGE) : e;
  }
  const range = values.range;
  const shard = parseShard(values.shard);
  const format = oneOf("format", values.format, ["text", "json"] as const, "text");
  const pack = loadPack();
  const policy = policyFromFile(values.config, pack);
  let bar: ReturnType<typeof progress> | null = null;
  const result = await runAudit({
    repo: await openRepo(await repoDirOf(values.repo)),
    range,
    ...(shard ? { shard } : {}),
    pack,
    ...(policy ? { policy } : {}),
    progress: {
      total: process.stderr.isTTY,
      start: (total) => (bar = progress(process.stderr, total, "auditing")),
      tick: () => bar?.tick(),
      done: () => bar?.done(),
    },
  });
  emit(
    format === "json"
      ? formatAuditJson(result)
      : formatAuditText(result, { color: values.output === undefined && useColor(process.stdout, process.env) }),
    values.output,
  );
  return result.verdict === "fail" ? 1 : 0;
}
