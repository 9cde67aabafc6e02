// Hand-built vLLM services and fleets for the kv rule tables, the card usage and the planner
// (test/helpers/hand-built-service.ts types their settings as the settings pipeline does); the rest is
// plain data.
import type { Config } from "../../src/config/schema.js";
import type { Policy } from "../../src/config/policy.js";
import { policyFrom } from "../helpers/fixture-source.js";
import { handBuiltService } from "../helpers/hand-built-service.js";
import type { Case } from "../helpers/rule-tester.js";
import type { Card, FleetState, Service, Tenant } from "../../src/model/types.js";
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
  return handBuiltService(pack, name, { ENGINE: "vllm", HOST, GPU: "0", ...env }, flags);
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
      ...(g.name === undefined ? {} : { name: g.name }),
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
