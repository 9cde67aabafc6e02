// Which service of the fleet a vLLM `model_name` label is: the name vLLM serves the model under. In
// order: a name kvgate.yaml usage.models lists for a service; a service of that name; a service that
// serves it (--served-model-name, which takes several names); a service that runs it as MODEL (the
// name vLLM serves when no --served-model-name is given), when only one does.
import type { CardUsage } from "../kv/card-usage.js";
import type { Service } from "../model/types.js";
import type { SeatLookup } from "./seats.js";

export interface FleetNames {
  services: readonly Service[];
  /** kvgate.yaml usage.models. */
  models: Readonly<Record<string, readonly string[]>>;
  ledgers: readonly CardUsage[];
}

function servedNames(s: Service): string[] {
  return s.env.flags
    .filter((f) => f.name === "--served-model-name" && f.value !== null)
    .flatMap((f) => (f.value as string).split(/[\s,]+/).filter(Boolean));
}

export function seatResolver(f: FleetNames | null): SeatLookup {
  if (f === null) return { serviceOf: () => null, kvOf: () => null };
  const byName = new Map<string, string>();
  for (const [service, names] of Object.entries(f.models)) for (const n of names) if (!byName.has(n)) byName.set(n, service);
  for (const s of f.services) if (!byName.has(s.name)) byName.set(s.name, s.name);
  for (const s of f.services) for (const n of servedNames(s)) if (!byName.has(n)) byName.set(n, s.name);
  const byModel = new Map<string, string[]>();
  for (const s of f.services) if (s.model) byModel.set(s.model, [...(byModel.get(s.model) ?? []), s.name]);
  for (const [model, names] of byModel) if (names.length === 1 && !byName.has(model)) byName.set(model, names[0] as string);
  return {
    serviceOf: (model) => byName.get(model) ?? null,
    kvOf: (service) => {
      for (const card of f.ledgers) for (const e of card.entries) if (e.kind === "seat" && e.name === service) return e.kv_bytes;
      return null;
    },
  };
}
