// Reads typed settings out of a parsed env file through rules/engines.yaml: the env key, the flags
// (the flag wins), and the unit each setting is read in.
import type { EnvEntry, EnvFlag, Origin, ParsedEnv, Service, Setting } from "./types.js";
import type { EngineSpec, SettingSpec } from "../rules/engines.js";
import { parseBytes, parseMib, parseTokens, parseVllmInt, type UnitResult } from "../units/bytes.js";

type Read = { ok: true; value: unknown } | { ok: false; message: string };

export function originOfEntry(parsed: ParsedEnv, e: EnvEntry): Origin {
  const source = e.file && e.file !== parsed.file ? "playbook" : "env";
  // A value an Ansible variable holds is written under the variable's name (docs/playbooks.md#variables).
  return { file: e.file ?? parsed.file, line: e.line, source, name: e.variable ?? e.key, ...(e.yaml ? { yaml: true } : {}) };
}

export function originOfFlag(parsed: ParsedEnv, f: EnvFlag): Origin {
  // A flag is a flag wherever it is written (an env file's *_ARGS, a compose command, a container task):
  // a fix names it as a flag, in the file the origin names (or the variable that holds its value, or the
  // key the file spells it as: a chart's `maxModelLen`).
  return {
    file: f.file ?? parsed.file,
    line: f.line,
    source: "flag",
    name: f.variable ?? f.written ?? f.spelled,
    ...(f.yaml ? { yaml: true } : {}),
  };
}

/** The last flag with one of these names (as on a command line, the last one wins). */
export function lastFlag(parsed: ParsedEnv, names: readonly string[]): EnvFlag | undefined {
  let found: EnvFlag | undefined;
  for (const f of parsed.flags) if (names.includes(f.name)) found = f;
  return found;
}

function fromUnit(r: UnitResult): Read {
  return r.ok ? { ok: true, value: r.value } : r;
}

export function readValue(spec: SettingSpec, raw: string, asFlag: boolean): Read {
  const vllmInt = asFlag && spec.flag_parser === "vllm-int";
  switch (spec.unit) {
    case "tokens":
      // vLLM's --max-model-len also takes `auto` / `-1` (human_readable_int_or_auto): fit to memory at boot.
      if (spec.flag_parser === "vllm-int" && /^(auto|-1)$/i.test(raw.trim())) return { ok: true, value: "auto" };
      return fromUnit(vllmInt ? positive(parseVllmInt(raw)) : parseTokens(raw));
    case "bytes":
      return fromUnit(vllmInt ? parseVllmInt(raw) : parseBytes(raw));
    case "mib":
      return fromUnit(parseMib(raw));
    case "int":
      return /^\d+$/.test(raw.trim()) ? { ok: true, value: Number(raw.trim()) } : { ok: false, message: `"${raw}" is not a whole number` };
    case "ratio": {
      const n = Number(raw.trim());
      return raw.trim() !== "" && Number.isFinite(n) && n > 0 && n <= 1
        ? { ok: true, value: n }
        : { ok: false, message: `"${raw}" is not a fraction in (0, 1], e.g. 0.45` };
    }
    case "bool": {
      const v = raw.trim().toLowerCase();
      if (["1", "true", "yes", "on"].includes(v)) return { ok: true, value: true };
      if (["0", "false", "no", "off", ""].includes(v)) return { ok: true, value: false };
      return { ok: false, message: `"${raw}" is not a boolean (1/0, true/false)` };
    }
    case "json":
      try {
        return { ok: true, value: JSON.parse(raw) };
      } catch (e) {
        return { ok: false, message: `"${raw}" is not valid JSON (${(e as Error).message}); quote the whole value in single quotes` };
      }
    case "string":
      return { ok: true, value: raw.trim() };
    case "slots": {
      const v = raw.trim();
      if (v === "auto") return { ok: true, value: "auto" };
      return /^\d+$/.test(v)
        ? { ok: true, value: Number(v) }
        : { ok: false, message: `"${raw}" is not a slot count: use auto or a whole number` };
    }
    default:
      return spec.unit satisfies never;
  }
}

function positive(r: UnitResult): UnitResult {
  return r.ok && r.value <= 0 ? { ok: false, message: "a token count must be positive" } : r;
}

function sameValue(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** Every setting of the engine that the file sets, typed; unreadable values go to service.invalid. */
export function readSettings(parsed: ParsedEnv, engine: EngineSpec, service: Pick<Service, "settings" | "invalid" | "conflicts">): void {
  for (const [name, spec] of Object.entries(engine.settings)) {
    // A process that reads only its command line never sees kvgate's env key for a setting it has a flag for.
    const inert = parsed.engineFlagsOnly === true && (spec.flags?.length ?? 0) > 0 && !spec.env?.startsWith("VLLM_");
    const entry = spec.env && !inert ? parsed.entries.get(spec.env) : undefined;
    const flag = lastFlag(parsed, [...(spec.flags ?? []), ...(spec.aliases ?? [])]);
    const envRead = entry ? readValue(spec, entry.value, false) : undefined;
    const flagRead = flag && flag.value !== null ? readValue(spec, flag.value, true) : undefined;
    if (entry && envRead && !envRead.ok)
      service.invalid.push({ name, raw: entry.value, origin: originOfEntry(parsed, entry), message: envRead.message });
    if (flag && flagRead && !flagRead.ok)
      service.invalid.push({ name, raw: flag.value ?? "", origin: originOfFlag(parsed, flag), message: flagRead.message });
    if (flag && flag.value === null && spec.unit !== "bool") {
      service.invalid.push({ name, raw: "", origin: originOfFlag(parsed, flag), message: `${flag.spelled} needs a value` });
    }
    // The flag wins over the env key, as the serve script passes it last.
    let chosen: Setting | undefined;
    if (flag && (flagRead?.ok || (flag.value === null && spec.unit === "bool"))) {
      const value = flagRead?.ok ? flagRead.value : true;
      chosen = { name, raw: flag.value ?? "", value, origin: originOfFlag(parsed, flag), shadowed: [] };
      if (entry) {
        chosen.shadowed.push(originOfEntry(parsed, entry));
        if (envRead?.ok && !sameValue(envRead.value, value)) {
          service.conflicts.push({
            name,
            kept: chosen.origin,
            keptRaw: chosen.raw,
            dropped: originOfEntry(parsed, entry),
            droppedRaw: entry.value,
          });
        }
      }
    } else if (entry && envRead?.ok) {
      chosen = { name, raw: entry.value, value: envRead.value, origin: originOfEntry(parsed, entry), shadowed: [] };
    }
    if (chosen) service.settings[name] = chosen;
  }
}
