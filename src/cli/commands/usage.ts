// kvgate usage (--litellm FILE... | --litellm-db URL) [--since T] [--until T] [--format text|json]:
// what each service's traffic was (contract section 16), and what its seat should be set to for it.
import { statSync } from "node:fs";
import { parse, oneOf, timeOption, withUsage } from "../args.js";
import { UsageError } from "../../errors.js";
import { workingViewIfAny } from "../view.js";
import { useColor } from "../../report/color.js";
import { byteProgress } from "../byte-progress.js";
import { ServiceMap } from "../../usage/services.js";
import { runawayThreshold, seatViews, type SeatView } from "../../usage/seats.js";
import { usageFromFiles } from "../../usage/files.js";
import { dbTarget, usageFromDb } from "../../usage/db.js";
import { buildReport, type UsageReport } from "../../usage/report.js";
import { renderUsage } from "../../usage/render.js";
import type { Policy } from "../../config/policy.js";

export const USAGE_USAGE =
  "usage: kvgate usage (--litellm FILE... | --litellm-db postgresql://…) [--since T] [--until T] [--format text|json] [--repo DIR] [--config FILE]";

const OPTIONS = {
  litellm: { type: "string", multiple: true },
  "litellm-db": { type: "string" },
  since: { type: "string" },
  until: { type: "string" },
  format: { type: "string" },
  repo: { type: "string" },
  config: { type: "string" },
} as const;

/** The fleet gives the seats; a folder with no fleet in it still gets the traffic figures. */
async function seatsOf(values: {
  repo?: string | undefined;
  config?: string | undefined;
}): Promise<{ seats: Map<string, SeatView>; policy: Policy | null }> {
  const w = await workingViewIfAny(values);
  return w ? { seats: seatViews(w.running, w.policy, w.pack), policy: w.policy } : { seats: new Map(), policy: null };
}

export function usageCommand(argv: string[]): Promise<number> {
  return withUsage(USAGE_USAGE, () => runUsage(argv));
}

async function runUsage(argv: string[]): Promise<number> {
  const { values, positionals } = parse(argv, OPTIONS, Number.MAX_SAFE_INTEGER);
  const format = oneOf("format", values.format, ["text", "json"] as const, "text");
  const files = [...(values.litellm ?? []), ...positionals];
  const db = values["litellm-db"];
  if (db !== undefined && files.length > 0) throw new UsageError("give --litellm FILE... or --litellm-db URL, not both", USAGE_USAGE);
  if (db === undefined && values.litellm === undefined) {
    if (positionals.length > 0)
      throw new UsageError(`unexpected argument "${positionals[0]}": name the exports with --litellm FILE...`, USAGE_USAGE);
    throw new UsageError(
      "name LiteLLM spend logs: --litellm FILE... (JSON lines, JSON array or CSV) or --litellm-db postgresql://…",
      USAGE_USAGE,
    );
  }
  const since = timeOption("since", values.since);
  const until = timeOption("until", values.until);
  if (since !== null && until !== null && until <= since) throw new UsageError("--until must be after --since", USAGE_USAGE);
  const target = db === undefined ? null : dbTarget(db);

  const { seats, policy } = await seatsOf(values);
  const runawayTokens = policy?.usage.runaway_tokens ?? 100_000;
  const services = new ServiceMap(policy?.usage.models ?? {});
  const threshold = (name: string): number => runawayThreshold(seats.get(name), runawayTokens);

  let report: UsageReport;
  if (target === null) {
    const total = files.reduce((n, f) => n + sizeOf(f), 0);
    const bar = byteProgress(process.stderr, total, "reading spend logs");
    let pass = 1;
    try {
      const r = await usageFromFiles({
        files,
        services,
        runawayThreshold: threshold,
        since,
        until,
        onBytes: (n, p) => {
          if (p !== pass) {
            pass = p;
            bar.label("exports not in time order: sorting the in-flight events");
          }
          bar.add(n);
        },
      });
      report = buildReport({ source: { files }, since, until, counts: r.counts, problems: r.problems, figures: r.figures, seats });
    } finally {
      bar.done();
    }
  } else {
    const thresholds = new Map<string, number>();
    for (const [name, seat] of seats) if (threshold(name) !== runawayTokens) thresholds.set(name, runawayThreshold(seat, runawayTokens));
    const r = await usageFromDb({ target, services, thresholds, defaultThreshold: runawayTokens, since, until });
    report = buildReport({
      source: { database: target.shown },
      since,
      until,
      counts: r.counts,
      problems: r.problems,
      figures: r.figures,
      seats,
    });
  }
  if (report.rows.skipped > 0)
    process.stderr.write(
      `kvgate usage: ${report.rows.skipped} row${report.rows.skipped === 1 ? "" : "s"} skipped (see "problems"${format === "text" ? " below" : ""})\n`,
    );
  process.stdout.write(
    format === "json" ? JSON.stringify(report, null, 2) + "\n" : renderUsage(report, { color: useColor(process.stdout, process.env) }),
  );
  return 0;
}

function sizeOf(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    // The reader reports an unreadable file with its reason.
    return 0;
  }
}
