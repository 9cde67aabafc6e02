// kvgate observe --metrics FILE... [--host H] [--since T] [--until T] [--format text|json|svg]
//                [--output FILE] [--write FILE]
// GPU memory per card from monitoring (contract section 16): boots, free at boot and at plateau, creep,
// against the card's reserve and kvgate's predicted footprint from the working tree.
import { writeNamedFile } from "../../git/door.js";
import { repoDirOf } from "../context.js";
import { parse, oneOf, timeOption, withUsage } from "../args.js";
import { GateError, UsageError } from "../../errors.js";
import { emit } from "../io.js";
import { workingViewIfAny } from "../view.js";
import { useColor } from "../../report/color.js";
import { cardUsage, usageOfCard, type CardUsage } from "../../kv/card-usage.js";
import { readMetricsFile } from "../../observe/read.js";
import { cardSeries } from "../../observe/series.js";
import { observeCard } from "../../observe/cards.js";
import { renderObserve, type ObserveReport } from "../../observe/render.js";
import { renderSvg } from "../../observe/svg.js";
import { writeObservedFile } from "../../observe/observed-file.js";
import type { RawSample } from "../../observe/sample.js";
import { VERSION } from "../../version.js";

export const OBSERVE_USAGE =
  "usage: kvgate observe --metrics FILE... [--host H] [--since T] [--until T] [--format text|json|svg] [--output FILE] [--write FILE] [--repo DIR] [--config FILE]";

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

async function fleetCards(values: {
  repo?: string | undefined;
  config?: string | undefined;
}): Promise<{ ledgers: CardUsage[]; hosts: string[] }> {
  const w = await workingViewIfAny(values);
  return w ? { ledgers: cardUsage(w.running, w.policy, w.pack), hosts: Object.keys(w.policy.fleet.hosts) } : { ledgers: [], hosts: [] };
}

export function observeCommand(argv: string[]): Promise<number> {
  return withUsage(OBSERVE_USAGE, () => runObserve(argv));
}

async function runObserve(argv: string[]): Promise<number> {
  const { values, positionals } = parse(argv, OPTIONS, Number.MAX_SAFE_INTEGER);
  const format = oneOf("format", values.format, ["text", "json", "svg"] as const, "text");
  if (values.metrics === undefined)
    throw new UsageError(
      "name the GPU metrics: --metrics FILE... (nvidia-smi CSV, Prometheus range-query JSON of DCGM, Beszel records)",
      OBSERVE_USAGE,
    );
  const files = [...values.metrics, ...positionals];
  const since = timeOption("since", values.since);
  const until = timeOption("until", values.until);
  if (since !== null && until !== null && until <= since) throw new UsageError("--until must be after --since", OBSERVE_USAGE);

  const { ledgers, hosts } = await fleetCards(values);
  if (values.host !== undefined && hosts.length > 0 && !hosts.includes(values.host)) {
    throw new GateError(`unknown host "${values.host}"`, { hint: `name one of kvgate.yaml's fleet.hosts: ${hosts.join(", ")}` });
  }
  const samples: RawSample[] = [];
  const report: ObserveReport = { tool: "kvgate", version: VERSION, sources: [], cards: [], problems: [], notes: [] };
  for (const file of files) {
    const r = readMetricsFile(file);
    report.sources.push({ file, format: r.format });
    report.problems.push(...r.problems);
    report.notes.push(...r.notes);
    if (r.samples.length === 0)
      throw new GateError(
        `${file}: no GPU memory readings in it${r.problems[0] ? ` (${r.problems[0].line === null ? "" : `line ${r.problems[0].line}: `}${r.problems[0].reason})` : ""}`,
        { hint: "check the export: see `kvgate observe --help` for the formats" },
      );
    for (const s of r.samples) samples.push(s);
  }
  const series = cardSeries(samples, {
    defaultHost: values.host ?? (hosts.length === 1 ? (hosts[0] as string) : null),
    fleetTotal: (host, index) => usageOfCard(ledgers, host, index)?.total_bytes ?? null,
    since,
    until,
  });
  if (series.length === 0) throw new GateError("no GPU memory readings in the window", { hint: "widen --since/--until" });
  report.cards = series.map((s) => observeCard(s, usageOfCard(ledgers, s.host, s.index)));

  if (values.write !== undefined) {
    try {
      // Through the door: a symlink in the repository that leads outside it is refused, never written through.
      writeNamedFile(await repoDirOf(values.repo), values.write, writeObservedFile(report.cards, files));
    } catch (e) {
      if (e instanceof GateError) throw e;
      throw new GateError(`cannot write --write ${values.write}: ${(e as Error).message}`, { hint: "name a writable path" });
    }
  }
  const text =
    format === "json"
      ? JSON.stringify(report, null, 2) + "\n"
      : format === "svg"
        ? renderSvg(series, report.cards)
        : renderObserve(report, { color: values.output === undefined && useColor(process.stdout, process.env) });
  emit(text, values.output);
  if (report.problems.length > 0 && format !== "text")
    process.stderr.write(`kvgate observe: ${report.problems.length} readings skipped (see "problems")\n`);
  return 0;
}
