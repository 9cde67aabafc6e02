// The starter kvgate.yaml: the services found under scripts/*.env, their engines, and the hosts and
// cards their env files name. Card sizes cannot be read from a repository, so each card gets a
// placeholder size the config validates, marked TODO.
import { parseEnv } from "../parse/env.js";
import { loadPack } from "../rules/load.js";
import type { RulesPack } from "../rules/pack.js";
import { engineSpec, recogniseEngine } from "../model/engine.js";

export interface FoundService {
  name: string;
  file: string;
  engine: string | null;
  /** How the engine was found when ENGINE is not set (`image`, `command`, `flag`); null otherwise. */
  recognisedBy: string | null;
  /** The engine sizes its KV per seat (an owner may pin it under kv.seats). */
  perSeat: boolean;
  host: string | null;
  gpus: number[];
}

const PLACEHOLDER_TOTAL = "80GiB";

function gpusOf(value: string | undefined): number[] {
  if (!value) return [];
  return value
    .split(",")
    .map((s) => s.trim())
    .filter((s) => /^\d+$/.test(s))
    .map(Number);
}

export function scanService(file: string, text: string, pack: RulesPack = loadPack()): FoundService {
  const env = parseEnv(text, file);
  const get = (k: string) => env.entries.get(k)?.value.trim() || undefined;
  const name = file.replace(/^.*\//, "").replace(/\.env$/, "");
  const set = get("ENGINE")?.toLowerCase() ?? null;
  const recognised = set === null ? recogniseEngine(pack, env) : null;
  const engine = set ?? recognised?.engine ?? null;
  return {
    name,
    file,
    engine,
    recognisedBy: recognised?.engine ? recognised.by : null,
    perSeat: engineSpec(pack, engine)?.kv_sizing === "seat",
    host: get("HOST") ?? null,
    gpus: gpusOf(get("GPU") ?? get("CUDA_VISIBLE_DEVICES")),
  };
}

/** host → card indexes, in order. Services without HOST join the only named host, if there is one. */
export function hostsOf(services: readonly FoundService[]): Map<string, number[]> {
  const named = [...new Set(services.map((s) => s.host).filter((h): h is string => h !== null))].sort();
  const hosts = new Map<string, Set<number>>(named.map((h) => [h, new Set<number>()]));
  for (const s of services) {
    const host = s.host ?? (named.length === 1 ? named[0] : undefined);
    if (host === undefined) continue;
    for (const g of s.gpus.length ? s.gpus : [0]) hosts.get(host)?.add(g);
  }
  return new Map([...hosts].map(([h, g]) => [h, [...g].sort((a, b) => a - b)]));
}

function yamlKey(s: string): string {
  return /^[A-Za-z0-9_.-]+$/.test(s) ? s : JSON.stringify(s);
}

export function starterConfig(services: readonly FoundService[]): string {
  const out: string[] = [
    "# kvgate.yaml, a starter written by `kvgate init` from what it found in this repository.",
    "# Every key is optional (the defaults come from kvgate's rules pack); `npx kvgate schema` prints",
    "# the JSON Schema. Fix each TODO, then `npx kvgate check --all` shows what the gate sees.",
    "version: 1",
    'services: "scripts/*.env"',
  ];
  if (services.length > 0) {
    out.push("# Services found:");
    for (const s of services)
      out.push(
        `#   ${s.name} (${s.file}): engine ${s.engine ?? "not set"}${s.recognisedBy ? ` (by ${s.recognisedBy})` : ""}${s.host ? `, host ${s.host}` : ""}${s.gpus.length ? `, gpu ${s.gpus.join(",")}` : ""}`,
      );
  } else {
    out.push("# No service files found under scripts/*.env; change `services` if they live elsewhere.");
  }
  const hosts = hostsOf(services);
  if (hosts.size > 0) {
    out.push("fleet:", "  hosts:");
    for (const [host, gpus] of hosts) {
      out.push(`    ${yamlKey(host)}:`, "      gpus:");
      for (const g of gpus)
        out.push(
          `        - { index: ${g}, total: ${PLACEHOLDER_TOTAL} }  # TODO: set the card's real size (nvidia-smi --query-gpu=memory.total --format=csv)`,
        );
    }
    out.push("  # tenants: GPU users without an env file, e.g.", "  #   - { name: asr, host: <host>, gpu: 0, vram: 3GiB }");
  } else {
    out.push(
      "# fleet:",
      "#   hosts:",
      "#     <host>:",
      "#       gpus:",
      `#         - { index: 0, total: ${PLACEHOLDER_TOTAL} }  # TODO: no env file names a HOST; describe the cards here`,
    );
  }
  const seats = services.filter((s) => s.perSeat);
  if (seats.length > 0) {
    out.push("# kv:", "#   seats:   # an owner's pinned KV number, checked exactly:");
    for (const s of seats) out.push(`#     ${yamlKey(s.name)}: { pinned: 8GiB, by: <owner> }`);
  }
  return out.join("\n") + "\n";
}
