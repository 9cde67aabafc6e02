// kvgate observe --metrics FILE... [--host H] [--since T] [--until T] [--format text|json|svg]
//                [--output FILE] [--write FILE]
// GPU memory per card from monitoring (docs/usage-observe.md): boots, free at boot and at plateau, creep,
// against the card's reserve and kvgate's predicted footprint from the working tree; and per vLLM seat,
// from the engines' own metrics, its peak KV use and every preemption window.
//
// Everything the arguments can be wrong about is said before a reading is read: the options, the
// host, and for files that name no host (nvidia-smi) that one is needed. The files are then streamed.
import { writeNamedFile } from "../../git/door.js";
import { repoDirOf } from "../context.js";
import { parse, oneOf, timeOption, withUsage } from "../args.js";
import { GateError, UsageError } from "../../errors.js";
import { emit } from "../io.js";
import { workingViewIfAny } from "../view.js";
import { useColor } from "../../report/color.js";
import { loadPack } from "../../rules/load.js";
import { loadPolicy } from "../../config/load.js";
import { createMasker } from "../../secrets/mask.js";
import { cardUsage, usageOfCard, type CardUsage } from "../../kv/card-usage.js";
import { sniffMetrics, type Sniffed } from "../../observe/read.js";
import { collectMetrics } from "../../observe/collect.js";
import { observeCard } from "../../observe/cards.js";
import { renderObserve, type ObserveReport } from "../../observe/render.js";
import { renderSvg, PLOT_COLUMNS } from "../../observe/svg.js";
import { writeObservedFile } from "../../observe/observed-file.js";
import { seatObservations } from "../../observe/seats.js";
import { seatResolver } from "../../observe/served-names.js";
import { lineMasker, shownReport } from "../../usage/shown.js";
import { VERSION } from "../../version.js";
import type { FleetView } from "../../engine/api.js";

export const OBSERVE_USAGE =
  "usage: kvgate observe --metrics FILE... [--host H] [--since T] [--until T] " +
  "[--format text|json|svg] [--output FILE] [--write FILE] [--repo DIR] [--config FILE]";

const OPTIONS = {
  metrics: { type: "string", multiple: true },
  host: { type: "string" },
  since: { type: "string" },
  until: { type: "string" },
  format: { type: "string" },
  output: { type: "string" },
  write: { type: "string" },
  repo: { type: "string" },
  config: { type: "string" },
} as const;

export function observeCommand(argv: string[]): Promise<number> {
  return withUsage(OBSERVE_USAGE, () => runObserve(argv));
}

function masker(w: FleetView | null): (s: string) => string {
  const pack = w?.pack ?? loadPack();
  const m = createMasker(pack.detectors(), w?.policy ?? loadPolicy(null, "kvgate.yaml", pack));
  return lineMasker((s) => m.text(s));
}

async function runObserve(argv: string[]): Promise<number> {
  const { values, positionals } = parse(argv, OPTIONS, Number.MAX_SAFE_INTEGER);
  const format = oneOf("format", values.format, ["text", "json", "svg"] as const, "text");
  if (values.metrics === undefined)
    throw new UsageError(
      "name the metrics: --metrics FILE... (nvidia-smi CSV, Prometheus range-query JSON or text of DCGM or vLLM, Beszel records)",
      OBSERVE_USAGE,
    );
  const files = [...values.metrics, ...positionals];
  const since = timeOption("since", values.since);
  const until = timeOption("until", values.until);
  if (since !== null && until !== null && until <= since) throw new UsageError("--until must be after --since", OBSERVE_USAGE);

  const w = await workingViewIfAny(values);
  const ledgers: CardUsage[] = w ? cardUsage(w.running, w.policy, w.pack) : [];
  const hosts = w ? Object.keys(w.policy.fleet.hosts) : [];
  if (values.host !== undefined && hosts.length > 0 && !hosts.includes(values.host)) {
    throw new GateError(`unknown host "${values.host}"`, { hint: `name one of kvgate.yaml's fleet.hosts: ${hosts.join(", ")}` });
  }
  const defaultHost = values.host ?? (hosts.length === 1 ? (hosts[0] ?? null) : null);
  const sniffed: Sniffed[] = [];
  for (const file of files) sniffed.push(await sniffMetrics(file));
  const hostless = sniffed.find((s) => s.hostless);
  if (hostless && defaultHost === null) {
    throw new GateError(`${hostless.file} (${hostless.format}) does not name the host of its cards`, {
      hint: `name it with --host HOST${hosts.length > 0 ? ` (one of kvgate.yaml's fleet.hosts: ${hosts.join(", ")})` : ""}`,
    });
  }

  const got = await collectMetrics({
    files: sniffed,
    host: values.host ?? null,
    defaultHost,
    fleetTotal: (host, index) => {
      const u = usageOfCard(ledgers, host, index);
      return u ? (u.cuda_total_bytes ?? u.total_bytes) : null;
    },
    since,
    until,
    chartColumns: format === "svg" ? PLOT_COLUMNS : null,
  });
  const look = seatResolver(w ? { services: w.running.services, models: w.policy.usage.models, ledgers } : null);
  const seats = seatObservations(got.engines, look);
  if (got.cards.length === 0 && seats.length === 0) {
    const first = got.problems[0];
    const why = first
      ? ` (${first.file}${first.line === null ? "" : `:${first.line}`}: ${first.reason})`
      : got.notes[0]
        ? ` (${got.notes[0]})`
        : "";
    throw new GateError(
      since !== null || until !== null
        ? `no GPU memory readings or vLLM metrics in the window${why}`
        : `no GPU memory readings or vLLM metrics in ${files.join(", ")}${why}`,
      {
        hint: since !== null || until !== null ? "widen --since/--until" : "check the export: see `kvgate observe --help` for the formats",
      },
    );
  }
  const notes = [...got.notes];
  if (hosts.length > 0 && values.host === undefined) {
    for (const h of new Set(got.cards.map((c) => c.host)))
      if (!hosts.includes(h))
        notes.push(
          `the metrics label cards with host ${h}, which kvgate.yaml's ` +
            `fleet.hosts does not list (the DCGM exporter in docker labels ` +
            `Hostname with its container id): name the host with --host`,
        );
  }
  const cards = got.cards.map((c) => observeCard(c, usageOfCard(ledgers, c.host, c.index)));
  const report: ObserveReport = shownReport(
    {
      tool: "kvgate",
      version: VERSION,
      times: "UTC",
      sources: sniffed.map((s) => ({ file: s.file, format: s.format })),
      cards,
      seats,
      problem_count: got.problemCount,
      problems: got.problems,
      notes,
    },
    masker(w),
  );

  if (values.write !== undefined) {
    try {
      // Through the door: a symlink in the repository that leads outside it is refused, never written through.
      writeNamedFile(
        await repoDirOf(values.repo),
        values.write,
        writeObservedFile(
          report.cards,
          report.sources.map((s) => s.file),
          report.seats,
        ),
      );
    } catch (e) {
      if (e instanceof GateError) throw e;
      throw new GateError(`cannot write --write ${values.write}: ${(e as Error).message}`, { hint: "name a writable path" });
    }
  }
  const text =
    format === "json"
      ? JSON.stringify(report, null, 2) + "\n"
      : format === "svg"
        ? renderSvg(got.cards.map((read, i) => ({ read, obs: report.cards[i] as (typeof report.cards)[number] })))
        : renderObserve(report, { color: values.output === undefined && useColor(process.stdout, process.env) });
  emit(text, values.output);
  if (report.problem_count > 0 && format !== "text")
    process.stderr.write(`kvgate observe: ${report.problem_count} readings skipped (see "problems")\n`);
  return 0;
}
