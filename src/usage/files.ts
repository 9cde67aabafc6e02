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
import { SpillSweep, who } from "./spill.js";

export interface FileUsageOptions {
  files: string[];
  services: ServiceMap;
  runawayThreshold: (service: string) => number;
  /** See AggregateOptions.peakCut. */
  peakCut?: (service: string) => number;
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
    ...(o.peakCut === undefined ? {} : { peakCut: o.peakCut }),
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
  const index = new Map(services.map((s, i) => [s, i]));
  // Deployments are numbered as they come, per service (their names repeat across services).
  const deployments = new Map<string, number>();
  const depNames: { service: string; name: string }[] = [];
  const depOf = (service: string, name: string): number => {
    const key = `${service}\u0000${name}`;
    let d = deployments.get(key);
    if (d === undefined) {
      d = depNames.length;
      deployments.set(key, d);
      depNames.push({ service, name });
    }
    return d;
  };
  const cuts = services.map((s) => agg.cutOf(s));
  // Deployment numbers are not known before the pass: the sweep gets a generous bound and the
  // numbers actually used are read back.
  const sweep = new SpillSweep(services.length, 1 << 16);
  try {
    for (const file of o.files) {
      await readSpendFile(
        file,
        {
          record(rec) {
            const row = spendRowOf(rec);
            if (typeof row === "string" || row.failed || row.cacheHit || !agg.inWindow(row)) return;
            const s = index.get(agg.serviceOf(row));
            if (s === undefined) return;
            const d = depNames.length < 1 << 16 ? depOf(services[s] as string, row.deployment) : -1;
            sweep.add(row.start, row.end, row.prompt + row.completion, who(s, d, row.completion >= (cuts[s] as number)));
          },
          bad() {},
        },
        (n) => o.onBytes?.(n, 2),
      );
    }
    const peaks = sweep.finish();
    services.forEach((service, s) => {
      const byDeployment = new Map<string, number>();
      depNames.forEach((d, i) => {
        if (d.service === service) byDeployment.set(d.name, peaks.deployments[i] as number);
      });
      agg.setExactPeaks(service, { all: peaks.all[s] as number, sans: peaks.sans[s] as number, deployments: byDeployment });
    });
  } finally {
    // finish() removes its folder; a failed read must not leave it behind either.
    sweep.dispose();
  }
}
