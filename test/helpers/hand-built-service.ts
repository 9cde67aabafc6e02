// A service built by hand from env keys and flags, for the rule tables of test/kv/ and test/radiance/:
// each key's line is its position, the flags sit on the line after the last key (as one SERVE_ARGS
// line of the env file the service stands for), and every setting is typed through the real unit
// readers (readValue), so `40960` and `32K` read as the settings pipeline reads them. The env file it
// stands for is recorded (./fixture-source.ts), for the rule pages.
import type { ParsedEnv, Service, Setting } from "../../src/model/types.js";
import type { RulesPack } from "../../src/rules/pack.js";
import { readValue } from "../../src/model/settings.js";
import { envText, standsFor } from "./fixture-source.js";

export function handBuiltService(
  pack: RulesPack,
  name: string,
  env: Record<string, string | undefined>,
  flags: Record<string, string> = {},
  file = `scripts/${name}.env`,
): Service {
  const keys = Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined);
  const lineOfKey = new Map(keys.map(([k], i) => [k, i + 1]));
  const engine = env.ENGINE ?? null;
  const spec = engine ? pack.engines.engines[engine] : undefined;
  const settings: Record<string, Setting> = {};
  for (const [sname, s] of Object.entries(spec?.settings ?? {})) {
    const flagName = (s.flags ?? []).find((f) => flags[f] !== undefined);
    const raw = flagName ? (flags[flagName] as string) : s.env ? env[s.env] : undefined;
    if (raw === undefined) continue;
    const r = readValue(s, raw, flagName !== undefined);
    if (!r.ok) throw new Error(r.message);
    const origin = flagName
      ? { file, line: keys.length + 1, source: "flag" as const, name: flagName }
      : { file, line: lineOfKey.get(s.env as string) ?? 0, source: "env" as const, name: s.env as string };
    settings[sname] = { name: sname, raw, value: r.value, origin, shadowed: [] };
  }
  const parsed: ParsedEnv = { file, entries: new Map(), all: [], flags: [], positionals: [], problems: [] };
  const origins: Service["origins"] = {};
  for (const [k, key] of [
    ["engine", "ENGINE"],
    ["host", "HOST"],
    ["gpus", "GPU"],
    ["tp", "TP"],
    ["model", "MODEL"],
  ] as const) {
    const line = lineOfKey.get(key);
    if (line !== undefined) origins[k] = { file, line, source: "env", name: key };
  }
  const service: Service = {
    name,
    file,
    engine,
    host: env.HOST ?? null,
    gpus: env.GPU ? env.GPU.split(",").map(Number) : [],
    model: env.MODEL ?? null,
    tp: env.TP ? Number(env.TP) : 1,
    settings,
    env: parsed,
    origins,
    invalid: [],
    conflicts: [],
  };
  return standsFor(service, envText(keys, flags));
}
