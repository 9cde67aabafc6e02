// The fix of a setting in the spelling the file uses: the flag when the value came from a flag (a
// seat that sets utilization by --gpu-memory-utilization changes that flag; adding the env key would
// only add an env/conflict), the env key otherwise, and the engine's env key when nothing sets it.
import { definitionOf, type Service } from "./types.js";
import type { RulesPack } from "../rules/pack.js";
import { engineSpec } from "./engine.js";
import type { ValueFix } from "./value-fix.js";

/** The fix that sets `setting` of `service` to `value`; null when the file cannot be given one (a flag-only setting that is not set). */
export function settingFix(pack: RulesPack, service: Service, setting: string, value: string | number): ValueFix | null {
  const v = String(value);
  const set = service.settings[setting];
  if (set) {
    const at = (o: typeof set.origin): ValueFix => ({
      file: o.file,
      line: o.line,
      key: o.name,
      value: v,
      ...(o.yaml ? { yaml: true } : {}),
    });
    const committed = set.committed;
    return committed && committed.file !== set.origin.file ? { ...at(set.origin), also: at(committed) } : at(set.origin);
  }
  const spec = engineSpec(pack, service.engine)?.settings[setting];
  const holder = spec?.flags?.[0] ? flagHolder(pack, service) : null;
  if (holder && spec?.flags?.[0]) return { file: holder.file, line: holder.line, key: spec.flags[0], value: v, into: holder.key };
  // A container reads flags, not kvgate's env keys (Service.flagsOnly): the flag to add to its command
  // (compose's `command:`, a container's `args:`), at the line the command starts.
  if (service.flagsOnly && spec?.flags?.[0]) {
    const cmd = service.env.entries.get("COMMAND");
    const file = cmd?.file ?? service.env.file;
    if (cmd && /\.ya?ml$/i.test(file)) return { file, line: cmd.line, key: spec.flags[0], value: v, into: "command" };
    return { file: definitionOf(service).file, line: null, key: spec.flags[0], value: v };
  }
  if (!spec?.env) return null;
  return { file: service.file, line: null, key: spec.env, value: v };
}

/**
 * Where a setting the file does not set goes, when the file writes its engine's settings as flags in
 * one key's value (`VLLM_EXTRA_ARGS="--model … --max-model-len …"`, as `docker run --env-file` fleets
 * do): that key, since the engine never reads kvgate's env keys there. A file that writes any of its
 * engine's settings as env keys (MAX_MODEL_LEN=…) keeps that convention: null. Only an env file's own
 * key (a deploy's command is not edited in place here).
 */
function flagHolder(pack: RulesPack, service: Service): { key: string; file: string; line: number } | null {
  const spec = engineSpec(pack, service.engine);
  if (!spec) return null;
  const envKeys = new Set(Object.values(spec.settings).flatMap((x) => (x.env ? [x.env] : [])));
  // (A process that reads only its command has no env-key convention: its flags are all there is.)
  if (!service.flagsOnly && service.env.all.some((e) => envKeys.has(e.key) && (e.file ?? service.file) === service.file)) return null;
  const flags = new Set(Object.values(spec.settings).flatMap((x) => x.flags ?? []));
  const last = [...service.env.flags]
    .reverse()
    .find((f) => flags.has(f.name) && ((f.file ?? service.file) === service.file || (f.file ?? "").endsWith(".service")));
  const entry = last ? service.env.entries.get(last.fromKey) : undefined;
  if (!entry) return null;
  const file = entry.file ?? service.file;
  // A systemd unit's command is its ExecStart line (src/systemd/read.ts).
  if (file.endsWith(".service")) return { key: "ExecStart", file, line: entry.line };
  if (file !== service.file || !service.file.endsWith(".env")) return null;
  return { key: entry.key, file: service.file, line: entry.line };
}

/** The service as it would read with one setting at another value: to ask the other rules about a fix before advising it. */
export function withSetting(service: Service, setting: string, value: number): Service {
  const s = service.settings[setting];
  const origin = s?.origin ?? { file: service.file, line: 0, source: "env" as const, name: setting };
  return {
    ...service,
    settings: {
      ...service.settings,
      [setting]: {
        name: setting,
        raw: String(value),
        value,
        origin,
        shadowed: s?.shadowed ?? [],
        ...(s?.committed ? { committed: s.committed } : {}),
      },
    },
  };
}
