// Which seats of a fleet kvgate sized, and what is missing for the rest (docs/coverage.md): a pass must
// mean every seat was sized and fits, so a seat whose card, model facts or settings cannot be
// determined is counted as unsized and refused (fleet/unsized, or the more specific rule named below).
// A seat is sized when:
// - its card is known: a host in the inventory (fleet.hosts) and every card it occupies listed there;
// - its model facts are known: bytes per token (or the per-kind request) and the weights;
// - every sizing setting it writes could be read (a deploy's `${VAR}` or `{{ var }}` left unresolved is not);
// - a radiance endpoint: its card is known, and its ledger facts file, when committed, reads (without one
//   its funding is not checked: the facts come from its first boot, and a new endpoint must be deployable).
import type { Policy } from "../config/policy.js";
import type { FleetState, Service } from "../model/types.js";
import { definitionOf } from "../model/types.js";
import type { RulesPack } from "../rules/pack.js";
import { engineSpec, isGenericEngine, needsEngine, sizesKvByLedger, sizesKvPerSeat } from "../model/engine.js";
import { seatOf } from "./seat.js";
import { isCommandKey } from "../model/unread-command.js";

/** What is missing, and which rule refuses it: fleet/unsized itself, or the rule that already does. */
interface Missing {
  what: "cards" | "model" | "weights" | "setting" | "ledger";
  /** What the user must add, in words, with the line to add where there is one. */
  detail: string;
  /** The rule that refuses it (fleet/unsized when no other rule does). */
  by: string;
}

export interface SeatCoverage {
  name: string;
  engine: string;
  /** `host:index` of each card it occupies (as far as known). */
  cards: string[];
  missing: Missing[];
  at: { file: string; line: number };
}

/** The JSON `coverage` of a result: counts, and the names behind the two lists. */
export interface Coverage {
  sized: number;
  cards: number;
  not_engines: string[];
  unsized: string[];
}

/** A card line to paste into kvgate.yaml for a host and its cards. */
function inventoryStanza(host: string, cards: readonly number[]): string {
  const list = (cards.length > 0 ? cards : [0]).map((i) => `{ index: ${i}, total: <GiB> }`).join(", ");
  return `fleet: { hosts: { ${host}: { gpus: [${list}] } } }`;
}

function cardsMissing(s: Service, cards: number[], fleet: FleetState, policy: Policy): Missing[] {
  const k8s = kubernetesCards(s, cards, fleet, policy);
  if (k8s) return k8s;
  const hosts = Object.keys(policy.fleet.hosts);
  if (hosts.length === 0) {
    const host = s.host ?? "<host>";
    return [
      {
        what: "cards",
        detail:
          `no card inventory: kvgate.yaml lists no fleet.hosts, so the card's memory is unknown; ` +
          `add ${inventoryStanza(host, cards)} (kvgate init --from-host fills it from nvidia-smi)`,
        by: "fleet/unsized",
      },
    ];
  }
  if (s.host === null)
    return [
      {
        what: "cards",
        detail: `no HOST, and fleet.hosts has several (${hosts.join(", ")}): add HOST=<one of them>`,
        by: "fleet/unknown-host",
      },
    ];
  if (!policy.fleet.hosts[s.host]) return [{ what: "cards", detail: `host ${s.host} is not in fleet.hosts`, by: "fleet/unknown-host" }];
  const listed = new Set(fleet.cards.filter((c) => c.host === s.host).map((c) => c.index));
  const absent = cards.filter((i) => !listed.has(i));
  return absent.length === 0
    ? []
    : [{ what: "cards", detail: `card ${absent.join(", ")} of ${s.host} is not in fleet.hosts.${s.host}.gpus`, by: "fleet/unknown-card" }];
}

/**
 * A Kubernetes seat's cards are its pool's, listed in the fleet under the pool's host (src/load/kubernetes.ts),
 * not in fleet.hosts; a seat whose pool is unknown is refused by k8s/unknown-card. Null for any other seat.
 */
function kubernetesCards(s: Service, cards: number[], fleet: FleetState, policy: Policy): Missing[] | null {
  const seat = fleet.kubernetes?.seats.find((x) => x.service === s.name);
  if (!seat || (s.host !== null && policy.fleet.hosts[s.host])) return null;
  if (seat.pool === null) return [{ what: "cards", detail: "its pods name no pool kvgate knows the card of", by: "k8s/unknown-card" }];
  const listed = new Set(fleet.cards.filter((c) => c.host === s.host).map((c) => c.index));
  const absent = cards.filter((i) => !listed.has(i));
  return absent.length === 0
    ? []
    : [{ what: "cards", detail: `card ${absent.join(", ")} of ${seat.pool} is not placed`, by: "fleet/unsized" }];
}

/** Sizing settings a deploy file writes through a variable kvgate could not resolve (their notice names it). */
function unresolvedSettings(s: Service, fleet: FleetState, pack: RulesPack): Missing[] {
  const spec = engineSpec(pack, s.engine);
  if (!spec) return [];
  const names = new Set(Object.values(spec.settings).flatMap((x) => [...(x.env ? [x.env] : []), ...(x.flags ?? [])]));
  const reads = [...(fleet.playbooks ?? []), ...(fleet.composes ?? []), ...(fleet.units ?? []), ...(fleet.kubernetes?.reads ?? [])];
  const out: Missing[] = [];
  for (const r of reads)
    for (const p of r.problems)
      if (p.kind === "unresolved" && p.service === s.name && p.key !== undefined && (names.has(p.key) || isCommandKey(p.key)))
        out.push({
          what: "setting",
          detail: `${p.key} at ${p.file}:${p.line} could not be read (${p.message}); write the value, or define the variable where kvgate can read it`,
          by: "fleet/unsized",
        });
  return out;
}

/**
 * Settings written in a form the engine (or kvgate) cannot read: the seat is sized as if they were not
 * set, which is not what runs (`--max-model-len ${MAX_LEN}` holds some length): unsized, and
 * engine/bad-value says which and how to write it.
 */
function unreadSettings(s: Service): Missing[] {
  return s.invalid.map((x) => ({
    what: "setting",
    detail: `${x.origin.name} at ${x.origin.file}:${x.origin.line} could not be read (${x.message})`,
    by: "engine/bad-value",
  }));
}

function vllmCoverage(s: Service, fleet: FleetState, policy: Policy, pack: RulesPack): SeatCoverage {
  const seat = seatOf(s, policy, pack, fleet);
  const missing = [...cardsMissing(s, seat.cards, fleet, policy)];
  if (!seat.perToken && !seat.request) missing.push({ what: "model", detail: "the model's facts are unknown", by: "engine/unknown-model" });
  else if (seat.weights === null)
    missing.push({
      what: "weights",
      detail:
        `the weights of ${s.model ?? "its model"} are unknown, so neither its footprint nor ` +
        `its KV estimate can be worked out; set WEIGHTS_MIB, or add weights to its models: entry`,
      by: "fleet/unsized",
    });
  missing.push(...unresolvedSettings(s, fleet, pack), ...unreadSettings(s));
  return { name: s.name, engine: s.engine ?? "", cards: seat.cards.map((i) => `${s.host ?? "?"}:${i}`), missing, at: definitionOf(s) };
}

function ledgerCoverage(s: Service, fleet: FleetState, policy: Policy, pack: RulesPack): SeatCoverage {
  const cards = s.gpus.length > 0 ? s.gpus : Array.from({ length: Math.max(1, s.tp) }, (_, i) => i);
  const missing = [...cardsMissing(s, cards, fleet, policy)];
  // Its ledger facts exist only once it has booted: without them its funding is not checked (the
  // radiance/ledger-facts notice), but a new endpoint must still be deployable, so that is not unsized.
  const entry = fleet.ledgerFacts[s.name];
  if (entry && !entry.ok) missing.push({ what: "ledger", detail: "its ledger facts file cannot be read", by: "radiance/ledger-facts" });
  missing.push(...unresolvedSettings(s, fleet, pack));
  return { name: s.name, engine: s.engine ?? "", cards: cards.map((i) => `${s.host ?? "?"}:${i}`), missing, at: definitionOf(s) };
}

/** Every seat of the fleet with what it is missing, and the services that are not seats kvgate sizes. */
export function fleetCoverage(fleet: FleetState, policy: Policy, pack: RulesPack): { seats: SeatCoverage[]; notEngines: string[] } {
  const seats: SeatCoverage[] = [];
  const notEngines: string[] = [];
  for (const s of fleet.services) {
    if (sizesKvPerSeat(pack, s)) seats.push(vllmCoverage(s, fleet, policy, pack));
    else if (sizesKvByLedger(pack, s)) seats.push(ledgerCoverage(s, fleet, policy, pack));
    else if (isGenericEngine(policy, s.engine) || fleet.tenants.some((t) => t.name === s.name)) notEngines.push(s.name);
    // A GPU user whose engine kvgate cannot name is engine/unknown's refusal, and unsized.
    else if ((s.engine === null || !engineSpec(pack, s.engine)) && needsEngine(s, pack))
      seats.push({
        name: s.name,
        engine: s.engine ?? "",
        cards: [],
        missing: [{ what: "model", detail: "its engine is unknown", by: "engine/unknown" }],
        at: definitionOf(s),
      });
    else notEngines.push(s.name);
  }
  for (const r of fleet.composes ?? []) for (const o of r.others ?? []) if (!notEngines.includes(o)) notEngines.push(o);
  return { seats, notEngines: notEngines.sort() };
}

/** The summary a result carries: seats sized, the cards they are on, what is not a seat, what is unsized. */
export function coverageOf(fleet: FleetState, policy: Policy, pack: RulesPack): Coverage {
  const { seats, notEngines } = fleetCoverage(fleet, policy, pack);
  const sized = seats.filter((s) => s.missing.length === 0);
  return {
    sized: sized.length,
    cards: new Set(sized.flatMap((s) => s.cards)).size,
    not_engines: notEngines,
    unsized: seats.filter((s) => s.missing.length > 0).map((s) => s.name),
  };
}
