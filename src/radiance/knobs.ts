// The sizing knobs of docs/radiance.md#knobs and what counts as moving one. A knob moves when its
// *effective* value changes: the typed value with the engine's default for an unset key, so a
// reformatted line, a moved comment, `32768` → `32K`, or a value moved from an env key into a flag
// is not a change. TTM_MIN_MIB / TTM_TARGET_MIB are derived from the knobs, never knobs themselves.
import type { Policy } from "../config/policy.js";
import type { Service } from "../model/types.js";
import type { RulesPack } from "../rules/pack.js";
import { engineSpec, extraKnobs, settingDefault } from "../model/engine.js";
import { valueText } from "../units/text.js";
import { formatNumber } from "../units/bytes.js";

interface KnobValue {
  /** How users name it: the env key (`HOST_POOL_MIB`), or `TP` / `GPU`. */
  knob: string;
  /** The canonical setting name, or `tp` / `gpus`. */
  setting: string;
  value: unknown;
  line: number | null;
}

export interface KnobChange {
  knob: string;
  setting: string;
  before: unknown;
  after: unknown;
  /** Where the after value is written (null when it went back to the default by deleting the key). */
  line: number | null;
}

export const PLACEMENT_SETTING = "placement";

function knobValues(service: Service, policy: Policy, pack: RulesPack): KnobValue[] {
  const spec = engineSpec(pack, service.engine);
  const out: KnobValue[] = [];
  for (const [name, s] of Object.entries(spec?.settings ?? {})) {
    if (!s.knob) continue;
    const setting = service.settings[name];
    out.push({
      knob: s.env ?? s.flags?.[0] ?? name,
      setting: name,
      // An unset knob has the engine's default where it gives one; without one it compares as "unset",
      // so adding or removing it is a change.
      value: setting === undefined ? settingDefault(s, policy) : setting.value,
      line: setting?.origin.line ?? null,
    });
  }
  for (const extra of extraKnobs(pack, service.engine)) {
    if (extra === "tp") out.push({ knob: "TP", setting: "tp", value: service.tp, line: service.origins.tp?.line ?? null });
    else out.push({ knob: "GPU", setting: "gpus", value: [...service.gpus], line: service.origins.gpus?.line ?? null });
  }
  return out;
}

function same(a: unknown, b: unknown): boolean {
  if (typeof a === "number" && typeof b === "number") return a === b;
  return JSON.stringify(a) === JSON.stringify(b);
}

/** The knobs whose effective value differs between the two sides, in the engine table's order. */
export function knobChanges(before: Service, after: Service, policy: Policy, pack: RulesPack): KnobChange[] {
  const was = new Map(knobValues(before, policy, pack).map((k) => [k.setting, k]));
  const out: KnobChange[] = [];
  for (const k of knobValues(after, policy, pack)) {
    const b = was.get(k.setting);
    if (b && same(b.value, k.value)) continue;
    out.push({ knob: k.knob, setting: k.setting, before: b?.value, after: k.value, line: k.line });
  }
  return out;
}

/** `44,928`, `auto`, `0,1`, `unset` — a knob value as a user reads it. */
export function showValue(v: unknown): string {
  if (v === undefined || v === null) return "unset";
  if (typeof v === "number") return formatNumber(v, 2);
  if (Array.isArray(v)) return v.join(",");
  return valueText(v);
}

export function showChange(c: KnobChange): string {
  return `${c.knob} ${showValue(c.before)} → ${showValue(c.after)}`;
}
