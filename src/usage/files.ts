// `usage --litellm FILE...`: one streaming pass over the exports, and a second pass only for the
// services whose rows were not in start order (their in-flight peaks then come from an external sort:
// ./spill.ts). Bad rows are skipped and counted, each with its file and line (the first PROBLEM_LIST
// shown); a file none of whose rows can be used is refused (exit 2): it is the wrong file, not a
// file with a few bad rows.
import { GateError } from "../errors.js";
import { UsageAggregator } from "./aggregate.js";
import type { RowCounts, RowProblem, ServiceFigures } from "./figures.js";
import { readSpendFile } from "./read.js";
import { emptyRow, spendRowOf } from "./row.js";
import type { ServiceMap } from "./services.js";
import { SpillPeak } from "./spill.js";

export interface FileUsageOptions {
  files: string[];
  services: ServiceMap;
  runawayThreshold: (service: string) => number;
  since: number | null;
  until: number | null;
  windowMs?: number;
  /** Bytes read, for a progress bar; the second pass (if any) reports its bytes too. */
  onBytes?: (n: number, pass: 1 | 2) => void;
}

export interface FileUsage {
  figures: ServiceFigures[];
  counts: RowCounts;
  problems: RowProblem[];
  /** Services whose in-flight peak needed the sorted second pass. */
  resorted: string[];
}

export async function usageFromFiles(o: FileUsageOptions): Promise<FileUsage> {
  const agg = new UsageAggregator({
    services: o.services,
    runawayThreshold: o.runawayThreshold,
    since: o.since,
    until: o.until,
    ...(o.windowMs === undefined ? {} : { windowMs: o.windowMs }),
  });
  // One row object for every row: the aggregator copies what it keeps.
  const scratch = emptyRow();
  for (const file of o.files) {
    let good = 0;
    let bad = 0;
    let first: { line: number | null; reason: string } | null = null;
    await readSpendFile(
      file,
      {
        record(rec, line) {
          const row = spendRowOf(rec, scratch);
          if (typeof row === "string") {
            this.bad(line, row);
            return;
          }
          good++;
          agg.add(row);
        },
        bad(line, reason) {
          bad++;
          first ??= { line, reason };
          agg.skip(file, line, reason);
        },
      },
      (n) => o.onBytes?.(n, 1),
    );
    if (good === 0 && bad > 0 && first !== null) {
      const f: { line: number | null; reason: string } = first;
      throw new GateError(`${file}: none of its ${bad} rows can be used (${f.line === null ? "" : `line ${f.line}: `}${f.reason})`, {
        hint: "is it a LiteLLM_SpendLogs export? Each row needs prompt_tokens, completion_tokens, startTime, endTime and model_group or model",
      });
    }
  }
  const resorted = agg.unordered();
  if (resorted.length > 0) await exactPeaks(o, agg, resorted);
  return { figures: agg.figures(), counts: agg.counts, problems: agg.problems, resorted };
}

async function exactPeaks(o: FileUsageOptions, agg: UsageAggregator, services: string[]): Promise<void> {
  const spills = new Map(services.map((s) => [s, { all: new SpillPeak(), sans: new SpillPeak(), threshold: agg.threshold(s) }]));
  try {
    for (const file of o.files) {
      await readSpendFile(
        file,
        {
          record(rec) {
            const row = spendRowOf(rec);
            if (typeof row === "string" || !agg.inWindow(row)) return;
            const sp = spills.get(agg.serviceOf(row));
            if (!sp) return;
            const tokens = row.prompt + row.completion;
            sp.all.add(row.start, row.end, tokens);
            if (row.completion < sp.threshold) sp.sans.add(row.start, row.end, tokens);
          },
          bad() {},
        },
        (n) => o.onBytes?.(n, 2),
      );
    }
    for (const [name, sp] of spills) agg.setExactPeaks(name, sp.all.finish(), sp.sans.finish());
  } finally {
    // finish() removes its temp files; a failed read must not leave them behind either.
    for (const sp of spills.values()) {
      sp.all.dispose();
      sp.sans.dispose();
    }
  }
}
