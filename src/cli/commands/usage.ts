// kvgate usage (--litellm FILE... | --litellm-db URL) [--since T] [--until T] [--min-requests N]
//              [--min-span D] [--metrics FILE...] [--connect-timeout D] [--statement-timeout D]
//              [--format text|json]
// What each service's traffic was (docs/usage-observe.md), and what its seat should be set to for it —
// when there is evidence enough — beside what vLLM's own metrics said of the seat.
import { statSync } from "node:fs";
import { parse, oneOf, timeOption, withUsage } from "../args.js";
import { GateError, UsageError } from "../../errors.js";
import { workingViewIfAny } from "../view.js";
import type { FleetView } from "../../engine/api.js";
import { useColor } from "../../report/color.js";
import { byteProgress } from "../byte-progress.js";
import { loadPack } from "../../rules/load.js";
import { loadPolicy } from "../../config/load.js";
import { createMasker } from "../../secrets/mask.js";
import { cardUsage } from "../../kv/card-usage.js";
import { ServiceMap } from "../../usage/services.js";
import { runawayThreshold, seatViews, type SeatView } from "../../usage/seats.js";
import { usageFromFiles } from "../../usage/files.js";
import { dbTarget, usageFromDb, type DbTimeouts } from "../../usage/db.js";
import { buildReport, type UsageReport } from "../../usage/report.js";
import { renderUsage } from "../../usage/render.js";
import { parseDuration } from "../../usage/duration.js";
import { cleanStaleSpills } from "../../usage/spill.js";
import { lineMasker, shownReport } from "../../usage/shown.js";
import { evidenceFromObserved, evidenceFromSeats } from "../../usage/engine-evidence.js";
import type { EngineEvidence, EvidenceFloor } from "../../usage/recommend.js";
import { sniffMetrics } from "../../observe/read.js";
import { collectMetrics } from "../../observe/collect.js";
import { seatObservations } from "../../observe/seats.js";
import { seatResolver } from "../../observe/served-names.js";
import type { Policy } from "../../config/policy.js";

export const USAGE_USAGE =
  "usage: kvgate usage (--litellm FILE... | --litellm-db postgresql://…) [--since T] " +
  "[--until T] [--min-requests N] [--min-span D] [--metrics FILE...] [--connect-timeout " +
  "D] [--statement-timeout D] [--format text|json] [--repo DIR] [--config FILE]";

const OPTIONS = {
  litellm: { type: "string", multiple: true },
  "litellm-db": { type: "string" },
  since: { type: "string" },
  until: { type: "string" },
  "min-requests": { type: "string" },
  "min-span": { type: "string" },
  metrics: { type: "string", multiple: true },
  "connect-timeout": { type: "string" },
  "statement-timeout": { type: "string" },
  format: { type: "string" },
  repo: { type: "string" },
  config: { type: "string" },
} as const;

/** The evidence floor below which `usage` reports but does not advise, and the database's time bounds. */
export const DEFAULTS = { minRequests: 1000, minSpan: "24h", connectTimeout: "10s", statementTimeout: "5m" } as const;

function duration(name: string, v: string | undefined, fallback: string): number {
  const ms = parseDuration(v ?? fallback);
  if (ms === null) throw new UsageError(`--${name} must be a duration: a number and a unit (90s, 10m, 24h, 7d), got "${v}"`, USAGE_USAGE);
  return ms;
}

function floorOf(values: { "min-requests"?: string | undefined; "min-span"?: string | undefined }): EvidenceFloor {
  const raw = values["min-requests"];
  const minRequests = raw === undefined ? DEFAULTS.minRequests : /^\d{1,9}$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isInteger(minRequests)) throw new UsageError(`--min-requests must be a whole number (got "${raw}")`, USAGE_USAGE);
  return { minRequests, minSpanMs: duration("min-span", values["min-span"], DEFAULTS.minSpan) };
}

/** The fleet gives the seats; a folder with no fleet in it still gets the traffic figures. */
function seatsOf(w: FleetView | null): { seats: Map<string, SeatView>; policy: Policy | null } {
  return w ? { seats: seatViews(w.running, w.policy, w.pack), policy: w.policy } : { seats: new Map(), policy: null };
}

export function usageCommand(argv: string[]): Promise<number> {
  return withUsage(USAGE_USAGE, () => runUsage(argv));
}

/** vLLM's own evidence per service: --metrics when given, else the observed file kvgate.yaml names. */
async function engineEvidence(metrics: string[] | undefined, w: FleetView | null): Promise<Map<string, EngineEvidence>> {
  const observed = w?.running.observed
    ? evidenceFromObserved(w.running.observed.file, w.running.observed.read)
    : new Map<string, EngineEvidence>();
  if (metrics === undefined) return observed;
  const files = [];
  for (const file of metrics) {
    const s = await sniffMetrics(file);
    if (s.format !== "prometheus" && s.format !== "prometheus-text")
      throw new GateError(`${file} (${s.format}) holds no vLLM metrics: --metrics of usage takes vLLM's Prometheus metrics`, {
        hint:
          "give a /metrics scrape or a Prometheus range query of vllm:kv_cache_usage_perc " +
          "and vllm:num_preemptions_total; GPU memory goes to kvgate observe",
      });
    files.push(s);
  }
  const got = await collectMetrics({
    files,
    host: null,
    defaultHost: null,
    fleetTotal: () => null,
    since: null,
    until: null,
    chartColumns: null,
  });
  const ledgers = w ? cardUsage(w.running, w.policy, w.pack) : [];
  const look = seatResolver(w ? { services: w.running.services, models: w.policy.usage.models, ledgers } : null);
  for (const [k, v] of evidenceFromSeats(metrics, seatObservations(got.engines, look))) observed.set(k, v);
  return observed;
}

function masker(w: FleetView | null): (s: string) => string {
  const pack = w?.pack ?? loadPack();
  const m = createMasker(pack.detectors(), w?.policy ?? loadPolicy(null, "kvgate.yaml", pack));
  return lineMasker((s) => m.text(s));
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
  const floor = floorOf(values);
  const timeouts: DbTimeouts = {
    connectMs: duration("connect-timeout", values["connect-timeout"], DEFAULTS.connectTimeout),
    statementMs: duration("statement-timeout", values["statement-timeout"], DEFAULTS.statementTimeout),
  };
  const target = db === undefined ? null : dbTarget(db);
  // A run killed hard (SIGKILL, a crash) could not remove its spill folder: the next run does.
  cleanStaleSpills();

  const w = await workingViewIfAny(values);
  const { seats, policy } = seatsOf(w);
  const engines = await engineEvidence(values.metrics, w);
  const runawayTokens = policy?.usage.runaway_tokens ?? 100_000;
  const services = new ServiceMap(policy?.usage.models ?? {});
  const threshold = (name: string): number => runawayThreshold(seats.get(name), runawayTokens);
  // The replies left out of the KV's peak: those a cap would cut. A seat's cap in force cuts only the
  // replies above it (written before the cap, or with an explicit max_tokens): replies that stopped at
  // it are the traffic the seat holds.
  const peakCut = (name: string): number => {
    const cap = seats.get(name)?.outputCap ?? null;
    return cap === null ? threshold(name) : cap + 1;
  };

  let report: UsageReport;
  const common = { since, until, seats, floor, engines };
  if (target === null) {
    const total = files.reduce((n, f) => n + sizeOf(f), 0);
    const bar = byteProgress(process.stderr, total, "reading spend logs");
    let pass = 1;
    try {
      const r = await usageFromFiles({
        files,
        services,
        runawayThreshold: threshold,
        peakCut,
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
      report = buildReport({ ...common, source: { files }, counts: r.counts, problems: r.problems, figures: r.figures });
    } finally {
      bar.done();
    }
  } else {
    const thresholds = new Map<string, number>();
    for (const [name, seat] of seats) if (threshold(name) !== runawayTokens) thresholds.set(name, runawayThreshold(seat, runawayTokens));
    const cuts = new Map([...seats.keys()].filter((n) => peakCut(n) !== threshold(n)).map((n) => [n, peakCut(n)] as const));
    const r = await usageFromDb({ target, services, thresholds, cuts, defaultThreshold: runawayTokens, since, until, timeouts });
    report = buildReport({ ...common, source: { database: target.shown }, counts: r.counts, problems: r.problems, figures: r.figures });
  }
  report = shownReport(report, masker(w));
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
