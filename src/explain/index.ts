// The explain views: each service's settings with where each came from, then the sizing sections
// (KV and card tables, radiance funding, the TTM ledger) as they apply.
import type { FleetState, Service } from "../model/types.js";
import type { Policy } from "../config/policy.js";
import type { RulesPack } from "../rules/pack.js";
import { COLORS, PLAIN } from "../report/color.js";
import { explainRadianceService } from "../radiance/explain.js";

export interface ExplainInput {
  fleet: FleetState;
  /** The committed state, when the working tree is in a repository: explain shows before → after. */
  before: FleetState | null;
  policy: Policy;
  pack: RulesPack;
  only: string | null;
}

function selected(input: ExplainInput): Service[] {
  return input.fleet.services.filter((s) => input.only === null || s.name === input.only);
}

function settingsJson(s: Service): Record<string, { value: unknown; raw: string; file: string; line: number; source: string; name: string }> {
  const out: Record<string, { value: unknown; raw: string; file: string; line: number; source: string; name: string }> = {};
  for (const [k, v] of Object.entries(s.settings)) out[k] = { value: v.value, raw: v.raw, ...v.origin };
  return out;
}

function radianceJson(s: Service, input: ExplainInput): Record<string, unknown> {
  if (s.engine !== "radiance") return {};
  const x = explainRadianceService(s, input.fleet, input.policy, input.before);
  return { ttm: x.ttm, funding: x.funding, ...(x.problems.length ? { problems: x.problems } : {}) };
}

export function explainJson(input: ExplainInput): { services: Record<string, unknown>[]; gpus: Record<string, unknown>[] } {
  const services = selected(input).map((s) => ({
    name: s.name,
    file: s.file,
    engine: s.engine,
    host: s.host,
    gpus: s.gpus,
    model: s.model,
    tp: s.tp,
    settings: settingsJson(s),
    ...radianceJson(s, input),
  }));
  const gpus = input.fleet.cards.map((c) => ({
    host: c.host,
    index: c.index,
    total_bytes: c.totalBytes,
    reserve_bytes: c.reserveBytes,
    tenants: input.fleet.tenants.filter((t) => t.host === c.host && t.gpu === c.index).map((t) => t.name),
  }));
  return { services, gpus };
}

export function explainText(input: ExplainInput, opts: { color: boolean }): string {
  const p = opts.color ? COLORS : PLAIN;
  const out: string[] = [];
  for (const s of selected(input)) {
    const where = [s.engine ?? "no engine", s.host ? `host ${s.host}` : null, s.gpus.length ? `gpu ${s.gpus.join(",")}` : null, s.model, s.tp > 1 ? `tp ${s.tp}` : null].filter(Boolean).join(" · ");
    out.push(`${p.bold(s.name)}  ${p.dim(s.file)}  ${where}`);
    const names = Object.keys(s.settings).sort();
    const width = Math.max(0, ...names.map((n) => n.length));
    for (const n of names) {
      const v = s.settings[n];
      if (!v) continue;
      const shown = typeof v.value === "object" ? JSON.stringify(v.value) : String(v.value);
      out.push(`  ${n.padEnd(width)}  ${shown}${shown !== v.raw && v.raw !== "" ? p.dim(` (${v.raw})`) : ""}  ${p.dim(`${v.origin.file}:${v.origin.line} ${v.origin.name}`)}`);
    }
    if (s.engine === "radiance") {
      const x = explainRadianceService(s, input.fleet, input.policy, input.before);
      out.push(x.text);
      for (const prob of x.problems) out.push(`  ${p.yellow("!")} ${prob}`);
    }
    out.push("");
  }
  return out.join("\n");
}
