// Hand-built vLLM services and fleets for the kv rule tables, the card usage and the planner.
// Settings are typed through the real unit readers (readValue) so `40960` and `32K` read as the
// settings pipeline reads them; the rest is plain data.
import type { Config } from "../../src/config/schema.js";
import type { Policy } from "../../src/config/policy.js";
import { envText, policyFrom, standsFor } from "../helpers/fixture-source.js";
import type { Case } from "../helpers/rule-tester.js";
import type { Card, FleetState, ParsedEnv, Service, Setting, Tenant } from "../../src/model/types.js";
import { readValue } from "../../src/model/settings.js";
import { loadPack } from "../../src/rules/load.js";
import { GiB } from "../../src/units/bytes.js";

export const pack = loadPack();

const HOST = "fv-ml1";

export function policyOf(user: Config = {}): Policy {
  return policyFrom({
    fleet: {
      hosts: {
        [HOST]: {
          gpus: [
            { index: 0, total: "96GiB", reserve: "1GiB" },
            { index: 1, total: "96GiB", reserve: "1GiB" },
          ],
        },
      },
    },
    ...user,
  });
}

/** A vLLM service from env keys (line = the key's position) and flags (`--name value`, on the last line). */
export function seat(name: string, env: Record<string, string | undefined>, flags: Record<string, string> = {}): Service {
  const file = `scripts/${name}.env`;
  const all: Record<string, string | undefined> = { ENGINE: "vllm", HOST, GPU: "0", ...env };
  const keys = Object.entries(all).filter((e): e is [string, string] => e[1] !== undefined);
  const lineOfKey = new Map(keys.map(([k], i) => [k, i + 1]));
  const engine = all.ENGINE ?? null;
  const spec = engine ? pack.engines.engines[engine] : undefined;
  const settings: Record<string, Setting> = {};
  for (const [sname, s] of Object.entries(spec?.settings ?? {})) {
    const flagName = (s.flags ?? []).find((f) => flags[f] !== undefined);
    if (flagName) {
      const raw = flags[flagName] as string;
      const r = readValue(s, raw, true);
      if (!r.ok) throw new Error(r.message);
      settings[sname] = {
        name: sname,
        raw,
        value: r.value,
        origin: { file, line: keys.length + 1, source: "flag", name: flagName },
        shadowed: [],
      };
      continue;
    }
    const raw = s.env ? all[s.env] : undefined;
    if (raw === undefined || !s.env) continue;
    const r = readValue(s, raw, false);
    if (!r.ok) throw new Error(r.message);
    settings[sname] = {
      name: sname,
      raw,
      value: r.value,
      origin: { file, line: lineOfKey.get(s.env) ?? 0, source: "env", name: s.env },
      shadowed: [],
    };
  }
  const parsed: ParsedEnv = { file, entries: new Map(), all: [], flags: [], positionals: [], problems: [] };
  const origins: Service["origins"] = {};
  for (const [k, key] of [
    ["engine", "ENGINE"],
    ["host", "HOST"],
    ["gpus", "GPU"],
    ["tp", "TP"],
    ["model", "MODEL"],
  ] as const) {
    const line = lineOfKey.get(key);
    if (line !== undefined) origins[k] = { file, line, source: "env", name: key };
  }
  return standsFor(
    {
      name,
      file,
      engine,
      host: all.HOST ?? null,
      gpus: all.GPU ? all.GPU.split(",").map(Number) : [],
      model: all.MODEL ?? null,
      tp: all.TP ? Number(all.TP) : 1,
      settings,
      env: parsed,
      origins,
      invalid: [],
      conflicts: [],
    },
    envText(keys, flags),
  );
}

/** The contract's voices seat: Qwen3-8B at 40,960 tokens. */
export function voices(env: Record<string, string | undefined> = {}, flags: Record<string, string> = {}): Service {
  return seat("voices", { MODEL: "Qwen/Qwen3-8B", MAX_MODEL_LEN: "40960", KV_CACHE_MEMORY_BYTES: "8053063680", ...env }, flags);
}

export function tenant(name: string, gpu: number, vram: number, pin = false, host = HOST): Tenant {
  return { name, host, gpu, vramBytes: vram, pin };
}

function cardsOf(policy: Policy): Card[] {
  return Object.entries(policy.fleet.hosts).flatMap(([host, h]) =>
    h.gpus.map((g) => ({
      host,
      index: g.index,
      totalBytes: g.total_bytes,
      reserveBytes: g.reserve_bytes,
      ...(g.cuda_total_bytes === undefined ? {} : { cudaTotalBytes: g.cuda_total_bytes }),
    })),
  );
}

export function fleet(services: Service[], tenants: Tenant[] = [], policy: Policy = policyOf()): FleetState {
  return { services, tenants, cards: cardsOf(policy), ledgerFacts: {}, paths: services.map((s) => s.file) };
}

/** A rule-tester case over vLLM seats on the fv-ml1 inventory (--all: no before). */
export function kvCase(name: string, services: Service[], opts: { tenants?: Tenant[]; policy?: Policy } = {}): Case {
  const policy = opts.policy ?? policyOf();
  return { name, fleet: fleet(services, opts.tenants ?? [], policy), policy };
}

export { GiB };
