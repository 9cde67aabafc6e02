// The explain views: each service's settings with where each came from, then the sizing sections
// (KV and card tables, radiance funding, the TTM ledger) as they apply.
import type { FleetState, Service } from "../model/types.js";
import type { Policy } from "../config/policy.js";
import type { RulesPack } from "../rules/pack.js";
import { COLORS, PLAIN } from "../report/color.js";
import { sizesKvByLedger, sizesKvPerSeat } from "../model/engine.js";
import { formatBytes, formatInt } from "../units/bytes.js";
import { explainRadianceService } from "./radiance.js";
import { explainVllm } from "./vllm.js";
import { renderCardTable } from "../report/card-table.js";
import { valueText } from "../units/text.js";

export interface ExplainInput {
  fleet: FleetState;
  /** The committed state, when the working tree is in a repository: explain shows before → after. */
  before: FleetState | null;
  policy: Policy;
  pack: RulesPack;
  only: string | null;
}

interface DeployedBy {
  file: string;
  line: number;
  /** A compose service's key. */
  compose_service?: string;
  /** The playbook whose task (a role's `template:`) writes the seat's env file whole, none committed. */
  playbook?: string;
  /** A Kubernetes workload: its kind and name, which replica the seat is, and the pool its pod lands on. */
  kind?: string;
  workload?: string;
  replica?: number;
  replicas?: number;
  pool?: string | null;
}

/** The compose services, Kubernetes workloads and playbook tasks that deploy a service (its values shown are theirs). */
function deployedBy(fleet: FleetState, name: string, file: string): DeployedBy[] {
  const compose = (fleet.composes ?? []).flatMap((r) =>
    r.deploys.filter((d) => d.service === name).map((d) => ({ file: d.file, line: d.line, compose_service: d.composeService })),
  );
  const k8s = (fleet.kubernetes?.seats ?? [])
    .filter((d) => d.service === name)
    .map((d) => ({
      file: d.file,
      line: d.line,
      kind: d.kind,
      workload: d.workload,
      replica: d.replica,
      replicas: d.replicas.count,
      pool: d.pool,
    }));
  // A playbook that edits a committed env file deploys that file; one that writes it whole (a role's
  // template, with no env file committed) is where the seat's values come from.
  const written = fleet.paths.includes(file)
    ? []
    : (fleet.playbooks ?? []).flatMap((r) =>
        r.deploys.flatMap((d) => {
          const reset = d.service === name ? d.edits.find((e) => e.kind === "reset") : undefined;
          return reset ? [{ file: reset.file, line: reset.line, playbook: d.playbook }] : [];
        }),
      );
  return [...compose, ...k8s, ...written];
}

function deployedByText(d: DeployedBy): string {
  if (d.compose_service !== undefined) return `compose service ${d.compose_service}`;
  if (d.playbook !== undefined) return `playbook ${d.playbook}`;
  const replica = (d.replicas ?? 1) > 1 ? `, replica ${d.replica ?? 0} of ${d.replicas ?? 1}` : "";
  return `${d.kind ?? "workload"} ${d.workload ?? ""}${replica}, ${d.pool ? `pool ${d.pool}` : "no pool known"}`;
}

/** Where a deployed seat's cards are set, when not in its env file (a compose device_ids line, say). */
function gpuWhere(s: Service): string {
  const o = s.origins.gpus;
  return o && o.file !== s.file ? ` (${o.file}:${o.line})` : "";
}

function selected(input: ExplainInput): Service[] {
  return input.fleet.services.filter((s) => input.only === null || s.name === input.only);
}

function settingsJson(
  s: Service,
): Record<string, { value: unknown; raw: string; file: string; line: number; source: string; name: string }> {
  const out: Record<string, { value: unknown; raw: string; file: string; line: number; source: string; name: string }> = {};
  for (const [k, v] of Object.entries(s.settings)) out[k] = { value: v.value, raw: v.raw, ...v.origin };
  return out;
}

/** The KV arithmetic of one seat, in the words of the contract's formula. */
function kvLines(
  seat: {
    kv: {
      bytes_per_token: number | null;
      required_bytes: number | null;
      pinned_bytes: number | null;
      factor: number;
      formula: string | null;
      model_source?: string | null;
      model_file?: string | null;
      request_bytes?: number | null;
      per_kind?: { kind: string; count: number; slots: number; blocks: number; bytes: number }[] | null;
      estimated_bytes?: number | null;
    };
    max_model_len?: number | null;
  },
  round: number,
): string[] {
  const k = seat.kv;
  if (k.bytes_per_token === null) return ["unknown model: no bytes per token (add it to kvgate.yaml models, or set KV_BYTES_PER_TOKEN)"];
  const lines = [`${formatInt(k.bytes_per_token)} B/token per GPU${k.formula ? ` = ${k.formula}` : ""}`];
  const len = seat.max_model_len ?? null;
  const hybrid = (k.per_kind ?? []).some((p) => p.kind !== "full" && p.kind !== "mla");
  if (hybrid && k.required_bytes !== null && k.request_bytes !== null && k.request_bytes !== undefined) {
    // Not every layer holds the whole context: the required KV is the factor over vLLM's per-kind request.
    lines.push(
      `required ${formatBytes(k.required_bytes)} = ceil(${k.factor} × one request ` +
        `${formatBytes(k.request_bytes)} / ${formatBytes(round)}) × ${formatBytes(round)}`,
    );
  } else if (k.required_bytes !== null && len !== null) {
    lines.push(
      `required ${formatBytes(k.required_bytes)} = ceil(${k.factor} × ${formatInt(len)} tokens ` +
        `× ${formatBytes(k.bytes_per_token)} / ${formatBytes(round)}) × ${formatBytes(round)}`,
    );
  }
  if (k.model_source) lines.push(`model facts from ${k.model_file ?? k.model_source}`);
  if (k.per_kind && k.request_bytes !== null && k.request_bytes !== undefined) {
    // Per layer kind, as vLLM reserves one max-length request: count, blocks per layer slot, bytes.
    const parts = k.per_kind.map(
      (p) =>
        `${p.count} ${p.kind}${p.slots !== p.count ? ` (${p.slots} slots)` : ""} × ${formatInt(p.blocks)} blocks = ${formatBytes(p.bytes)}`,
    );
    lines.push(`one request: ${parts.join(" + ")} = ${formatBytes(k.request_bytes)}`);
  }
  if (k.pinned_bytes === null) {
    lines.push(
      k.estimated_bytes !== null && k.estimated_bytes !== undefined
        ? `no byte pin: vLLM's profiler leaves an estimated ${formatBytes(k.estimated_bytes)} for KV`
        : "no byte pin: KV comes from --gpu-memory-utilization profiling",
    );
  } else {
    lines.push(`pinned ${formatBytes(k.pinned_bytes)}`);
  }
  return lines;
}

function vllmJson(name: string, seats: readonly { name: string }[]): Record<string, unknown> {
  const seat = seats.find((x) => x.name === name);
  if (!seat) return {};
  const { name: _n, ...rest } = seat as Record<string, unknown>;
  return rest;
}

function radianceJson(s: Service, input: ExplainInput): Record<string, unknown> {
  if (!sizesKvByLedger(input.pack, s)) return {};
  const x = explainRadianceService(s, input.fleet, input.policy, input.before);
  return { ttm: x.ttm, funding: x.funding, ...(x.problems.length ? { problems: x.problems } : {}) };
}

/** How the engine was found (docs/engines.md): `by` ENGINE, image, command or flag, what said so, and where. */
function engineFrom(s: Service): { by: string; evidence: string | null; file: string | null; line: number | null } | null {
  const r = s.recognition;
  if (!r) return null;
  return { by: r.by, evidence: r.evidence, file: r.origin?.file ?? null, line: r.origin?.line ?? null };
}

/** The version a seat was sized as; an assumed one says so, since every fact that follows hangs on it. */
function versionText(version: string | null, assumed: string[] | null): string {
  if (version !== null) return `vLLM ${version}`;
  const range = assumed?.length ? `${assumed[0]}–${assumed[assumed.length - 1]}` : "the releases kvgate knows";
  return `vLLM ${range} (assumed: neither the image's tag nor VLLM_VERSION names one; sized for each)`;
}

function engineText(s: Service): string {
  const r = s.recognition;
  if (s.engine === null) return r?.candidates ? `no engine (${r.candidates.join(" or ")}?)` : "no engine";
  if (!r || r.by === "ENGINE") return s.engine;
  return `${s.engine} (by ${r.by}: ${r.evidence})`;
}

export function explainJson(input: ExplainInput): { services: Record<string, unknown>[]; gpus: unknown[] } {
  const vllm = explainVllm(input.fleet, input.policy, input.pack);
  const services = selected(input).map((s) => ({
    name: s.name,
    file: s.file,
    engine: s.engine,
    engine_from: engineFrom(s),
    host: s.host,
    gpus: s.gpus,
    gpus_from: s.origins.gpus ?? null,
    model: s.model,
    tp: s.tp,
    deployed_by: deployedBy(input.fleet, s.name, s.file),
    settings: settingsJson(s),
    ...radianceJson(s, input),
    ...vllmJson(s.name, vllm.services),
  }));
  const gpus = vllm.gpus;
  return { services, gpus };
}

export function explainText(input: ExplainInput, opts: { color: boolean }): string {
  const p = opts.color ? COLORS : PLAIN;
  const out: string[] = [];
  const vllm = explainVllm(input.fleet, input.policy, input.pack);
  for (const s of selected(input)) {
    const where = [
      engineText(s),
      s.host ? `host ${s.host}` : null,
      s.gpus.length ? `gpu ${s.gpus.join(",")}${gpuWhere(s)}` : null,
      s.model,
      s.tp > 1 ? `tp ${s.tp}` : null,
    ]
      .filter(Boolean)
      .join(" · ");
    const by = deployedBy(input.fleet, s.name, s.file);
    // A compose service, a Kubernetes workload or a template with no env file of its own: its file is all there is.
    const file = by.length > 0 && !input.fleet.paths.includes(s.file) ? `(no ${s.file})` : s.file;
    out.push(`${p.bold(s.name)}  ${p.dim(file)}  ${where}`);
    for (const d of by) out.push(`  ${p.dim(`deployed by ${d.file}:${d.line} (${deployedByText(d)}): its values below`)}`);
    const names = Object.keys(s.settings).sort();
    const width = Math.max(0, ...names.map((n) => n.length));
    for (const n of names) {
      const v = s.settings[n];
      if (!v) continue;
      const shown = typeof v.value === "object" ? JSON.stringify(v.value) : valueText(v.value);
      out.push(
        `  ${n.padEnd(width)}  ${shown}${shown !== v.raw && v.raw !== "" ? p.dim(` (${v.raw})`) : ""} ` +
          ` ${p.dim(`${v.origin.file}:${v.origin.line} ${v.origin.name}`)}`,
      );
    }
    const seat = sizesKvPerSeat(input.pack, s) ? vllm.services.find((x) => x.name === s.name) : undefined;
    if (seat) out.push(`  ${p.bold("version")}  ${versionText(seat.vllm_version, seat.assumed_vllm_versions)}`);
    if (seat?.weights_formula) out.push(`  ${p.bold("weights")}  ${seat.weights_formula}`);
    if (seat?.kv) out.push(...kvLines(seat, input.policy.kv.round_bytes).map((l) => `  ${p.bold("kv")}  ${l}`));
    if (sizesKvByLedger(input.pack, s)) {
      const x = explainRadianceService(s, input.fleet, input.policy, input.before);
      out.push(x.text);
      for (const prob of x.problems) out.push(`  ${p.yellow("!")} ${prob}`);
    }
    out.push("");
  }
  // One service: its own cards; the whole fleet: every card.
  const mine = (l: { host: string; index: number }) =>
    input.only === null || selected(input).some((s) => s.host === l.host && s.gpus.includes(l.index));
  const usages = vllm.usages.filter(mine);
  if (usages.length > 0) {
    out.push(p.bold("cards"));
    out.push(renderCardTable(usages, opts));
  }
  return out.join("\n");
}
