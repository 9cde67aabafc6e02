// The fix of a setting in the spelling the file uses: the flag when the value came from a flag (a
// seat that sets utilization by --gpu-memory-utilization changes that flag; adding the env key would
// only add an env/conflict), the env key otherwise, and the engine's env key when nothing sets it.
import type { Service } from "../model/types.js";
import type { RulesPack } from "../rules/pack.js";
import { engineSpec } from "../model/engine.js";
import type { ValueFix } from "../model/value-fix.js";

/** The fix that sets `setting` of `service` to `value`; null when the file cannot be given one (a flag-only setting that is not set). */
export function settingFix(pack: RulesPack, service: Service, setting: string, value: string | number): ValueFix | null {
  const v = String(value);
  const origin = service.settings[setting]?.origin;
  if (origin) return { file: origin.file, line: origin.line, key: origin.name, value: v };
  const spec = engineSpec(pack, service.engine)?.settings[setting];
  if (!spec?.env) return null;
  return { file: service.file, line: null, key: spec.env, value: v };
}

/** The service as it would read with one setting at another value: to ask the other rules about a fix before advising it. */
export function withSetting(service: Service, setting: string, value: number): Service {
  const s = service.settings[setting];
  const origin = s?.origin ?? { file: service.file, line: 0, source: "env" as const, name: setting };
  return {
    ...service,
    settings: { ...service.settings, [setting]: { name: setting, raw: String(value), value, origin, shadowed: s?.shadowed ?? [] } },
  };
}
