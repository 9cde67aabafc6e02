// The starter kvgate.yaml `kvgate init` writes (docs/coverage.md#init): the services glob that matches
// the seats it found, what it found and what it did not take, and the card inventory — from the host
// (`--from-host`) when given, else the stanza to fill, commented: the check then refuses every seat as
// unsized (fleet/unsized) until it is filled. A card size is never guessed, so the gate is never left
// passing seats nobody sized.
import type { HostCard } from "./inventory.js";

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

/** One host's cards for the starter, and where they came from. */
export interface Inventory {
  host: string;
  cards: readonly HostCard[];
  source: string;
}

export interface StarterInput {
  services: readonly FoundService[];
  /** The services glob to write; null: the default (scripts/*.env) stays. */
  servicesGlob: string | null;
  /** Compose files, units and playbooks that deploy a seat. */
  deploys: readonly string[];
  notTaken: readonly { path: string; why: string }[];
  /**
   * The hosts' cards: from nvidia-smi (`--from-host`: one output for each host named, identical
   * machines), else the cards the repository names (rules/cards.yaml gives the total); empty when neither.
   */
  inventories: readonly Inventory[];
}

/** host → card indexes the seats name, in order. Seats without HOST join the only named host. */
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

function inventoryLines(input: StarterInput): string[] {
  const hosts = input.inventories;
  if (hosts.length > 0) {
    const out = [`fleet:`, `  hosts:`];
    for (const inv of hosts) {
      out.push(`    ${yamlKey(inv.host)}:  # from ${inv.source}`, `      gpus:`);
      for (const c of inv.cards) out.push(`        - { index: ${c.index}, total: ${c.totalMib}MiB }  # ${c.name}`);
    }
    out.push("  # tenants: GPU users without an env file, e.g.", "  #   - { name: asr, host: <host>, gpu: 0, vram: 3GiB }");
    return out;
  }
  const seatHosts = hostsOf(input.services);
  const seats = input.services.length > 0;
  const out = [
    "# fleet:   # TODO: the card inventory. Until it is filled in, the check refuses every seat as",
    "#          # unsized (fleet/unsized): run `kvgate init --from-host` on the GPU host (or save there",
    "#          # `nvidia-smi --query-gpu=index,name,memory.total --format=csv` and pass --from-host FILE).",
    "#   hosts:",
  ];
  if (seatHosts.size === 0)
    out.push("#     <host>:", "#       gpus:", `#         - { index: 0, total: <GiB> }${seats ? "" : "  # no seat found"}`);
  for (const [host, gpus] of seatHosts) {
    out.push(`#     ${yamlKey(host)}:`, "#       gpus:");
    for (const g of gpus) out.push(`#         - { index: ${g}, total: <GiB> }`);
  }
  return out;
}

export function starterConfig(input: StarterInput): string {
  const out: string[] = [
    "# kvgate.yaml, a starter written by `kvgate init` from what it found in this repository.",
    "# Every key is optional (the defaults come from kvgate's rules pack); `npx kvgate schema` prints",
    "# the JSON Schema. Fix each TODO, then `npx kvgate check --all` shows what the gate sees.",
    "version: 1",
  ];
  if (input.servicesGlob) out.push(`services: ${JSON.stringify(input.servicesGlob)}`);
  if (input.services.length > 0) {
    out.push("# Seats and GPU users found:");
    for (const s of input.services)
      out.push(
        `#   ${s.name} (${s.file}): engine ` +
          `${s.engine ?? "not set"}${s.recognisedBy ? ` (by ${s.recognisedBy})` : ""}${s.host ? `, host ${s.host}` : ""}${s.gpus.length ? `, gpu ${s.gpus.join(",")}` : ""}`,
      );
  } else out.push("# No seat found: no env file, compose service or unit names an engine kvgate knows or holds a GPU.");
  if (input.deploys.length > 0) out.push(`# Deployed by: ${input.deploys.join(", ")}`);
  for (const n of input.notTaken) out.push(`# Not taken: ${n.path}: ${n.why}`);
  out.push(...inventoryLines(input));
  const seats = input.services.filter((s) => s.perSeat);
  if (seats.length > 0) {
    out.push("# kv:", "#   seats:   # an owner's pinned KV number, checked exactly:");
    for (const s of seats) out.push(`#     ${yamlKey(s.name)}: { pinned: 8GiB, by: <owner> }`);
  }
  return out.join("\n") + "\n";
}
