// Static YaRN as a service turns it on: `--hf-overrides` with `rope_scaling` or `rope_parameters`
// of `rope_type: yarn` (newer transformers spell it rope_parameters), or the older `--rope-scaling`.
import type { Origin, Service } from "../model/types.js";

export interface YarnOn {
  factor: number;
  /** original_max_position_embeddings as given; null when the override leaves it out. */
  original: number | null;
  origin: Origin;
  via: string;
}

function asRecord(v: unknown): Record<string, unknown> | null {
  return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
}

function yarnIn(v: unknown): { factor: number; original: number | null } | null {
  const r = asRecord(v);
  if (!r) return null;
  const type = r.rope_type ?? r.type;
  if (typeof type !== "string" || type.toLowerCase() !== "yarn") return null;
  const factor = typeof r.factor === "number" && r.factor > 0 ? r.factor : 1;
  const original = typeof r.original_max_position_embeddings === "number" ? r.original_max_position_embeddings : null;
  return { factor, original };
}

export function yarnOf(service: Service): YarnOn | null {
  const hf = service.settings.hf_overrides;
  const over = asRecord(hf?.value);
  if (hf && over) {
    for (const key of ["rope_scaling", "rope_parameters"]) {
      const y = yarnIn(over[key]);
      if (y) return { ...y, origin: hf.origin, via: `--hf-overrides ${key}` };
    }
  }
  const rs = service.settings.rope_scaling;
  if (rs) {
    const y = yarnIn(rs.value);
    if (y) return { ...y, origin: rs.origin, via: "--rope-scaling" };
  }
  return null;
}

/** `--override-generation-config {"max_new_tokens": N}`: N, or null when there is no default cap. */
export function outputCapOf(service: Service): { cap: number; origin: Origin } | null {
  const s = service.settings.override_generation_config;
  const r = asRecord(s?.value);
  if (!s || !r) return null;
  const n = r.max_new_tokens ?? r.max_tokens;
  return typeof n === "number" && n > 0 ? { cap: n, origin: s.origin } : null;
}
