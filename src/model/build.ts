// Builds the typed service model from parsed env files, and the fleet (cards, tenants) from the policy.
import type { Card, FleetState, Origin, ParsedEnv, Service, Tenant } from "./types.js";
import type { Policy } from "../config/policy.js";
import type { RulesPack } from "../rules/pack.js";
import { lastFlag, originOfEntry, originOfFlag, readSettings } from "./settings.js";
import { engineSpec, recogniseEngine } from "./engine.js";

/** `scripts/voices.env` → `voices`. */
export function serviceNameOf(path: string): string {
  const base = path.split("/").pop() ?? path;
  return base.replace(/\.env$/, "");
}

function firstOf(parsed: ParsedEnv, keys: string[], flags: string[]): { value: string; origin: Origin } | null {
  const flag = lastFlag(parsed, flags);
  if (flag && flag.value !== null) return { value: flag.value, origin: originOfFlag(parsed, flag) };
  for (const k of keys) {
    const e = parsed.entries.get(k);
    if (e && e.value !== "") return { value: e.value, origin: originOfEntry(parsed, e) };
  }
  return null;
}

/** The word after `serve` in a command key (`vllm serve MODEL`). */
function servedModel(parsed: ParsedEnv): { value: string; origin: Origin } | null {
  const p = parsed.positionals;
  for (let i = 0; i + 1 < p.length; i++) {
    const cur = p[i];
    const next = p[i + 1];
    if (cur && next && cur.word === "serve" && next.fromKey === cur.fromKey) {
      // The command may come from a deploy (a compose command, a container task): its file, not the env file.
      const file = parsed.entries.get(cur.fromKey)?.file ?? parsed.file;
      return { value: next.word, origin: { file, line: next.line, source: "flag", name: `${cur.fromKey} serve` } };
    }
  }
  return null;
}

/** `0, 1` and `0,1` name the same cards; the order matters (it is the rank order). */
function cardList(v: string): string {
  return v
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "")
    .join(",");
}

export function buildService(parsed: ParsedEnv, pack: RulesPack, policy: Policy, name = serviceNameOf(parsed.file)): Service {
  const service: Service = {
    name,
    file: parsed.file,
    engine: null,
    host: null,
    gpus: [],
    model: null,
    tp: 1,
    settings: {},
    env: parsed,
    origins: {},
    invalid: [],
    conflicts: [],
  };
  const engine = firstOf(parsed, ["ENGINE"], []);
  if (engine) {
    service.engine = engine.value.trim().toLowerCase();
    service.origins.engine = engine.origin;
    service.recognition = { engine: service.engine, by: "ENGINE", evidence: `ENGINE=${engine.value.trim()}`, origin: engine.origin };
  } else {
    service.recognition = recogniseEngine(pack, parsed);
    service.engine = service.recognition.engine;
    if (service.recognition.origin && service.engine !== null) service.origins.engine = service.recognition.origin;
  }
  const host = firstOf(parsed, ["HOST"], []);
  const hosts = Object.keys(policy.fleet.hosts);
  if (host) {
    service.host = host.value.trim();
    service.origins.host = host.origin;
  } else if (hosts.length === 1) {
    service.host = hosts[0] as string;
  }
  const gpu = firstOf(parsed, ["GPU", "CUDA_VISIBLE_DEVICES"], []);
  const cuda = parsed.entries.get("CUDA_VISIBLE_DEVICES");
  if (gpu && cuda && gpu.origin.name === "GPU" && cardList(cuda.value) !== cardList(gpu.value)) {
    service.gpuConflict = { kept: gpu.origin, keptRaw: gpu.value, other: originOfEntry(parsed, cuda), otherRaw: cuda.value };
  }
  if (gpu) {
    const parts = gpu.value
      .split(",")
      .map((s) => s.trim())
      .filter((s) => s !== "");
    if (parts.every((p) => /^\d+$/.test(p))) service.gpus = parts.map(Number);
    else
      service.invalid.push({
        name: "gpu",
        raw: gpu.value,
        origin: gpu.origin,
        message: `"${gpu.value}" is not a card list: write ${gpu.origin.name}=0 or ${gpu.origin.name}=0,1`,
      });
    service.origins.gpus = gpu.origin;
  }
  const model = firstOf(parsed, ["MODEL"], ["--model"]) ?? servedModel(parsed);
  if (model) {
    service.model = model.value.trim();
    service.origins.model = model.origin;
  }
  const tp = firstOf(parsed, ["TP"], ["--tensor-parallel-size", "-tp"]);
  if (tp) {
    if (/^\d+$/.test(tp.value.trim()) && Number(tp.value) > 0) service.tp = Number(tp.value);
    else
      service.invalid.push({
        name: "tp",
        raw: tp.value,
        origin: tp.origin,
        message: `"${tp.value}" is not a tensor-parallel size: write a whole number like 2`,
      });
    service.origins.tp = tp.origin;
  }
  const spec = engineSpec(pack, service.engine);
  if (spec) readSettings(parsed, spec, service);
  return service;
}

function cardsOf(policy: Policy): Card[] {
  const cards: Card[] = [];
  for (const [host, h] of Object.entries(policy.fleet.hosts)) {
    for (const g of h.gpus)
      cards.push({
        host,
        index: g.index,
        ...(g.name === undefined ? {} : { name: g.name }),
        totalBytes: g.total_bytes,
        reserveBytes: g.reserve_bytes,
        ...(g.cuda_total_bytes === undefined ? {} : { cudaTotalBytes: g.cuda_total_bytes }),
      });
  }
  return cards;
}

function tenantsOf(policy: Policy): Tenant[] {
  return policy.fleet.tenants.map((t) => ({ name: t.name, host: t.host, gpu: t.gpu, vramBytes: t.vram_bytes, pin: t.pin }));
}

export function emptyFleet(policy: Policy): FleetState {
  return { services: [], tenants: tenantsOf(policy), cards: cardsOf(policy), ledgerFacts: {}, paths: [] };
}
