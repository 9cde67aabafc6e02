// Where a playbook's deploy and the committed env file disagree: each env key the playbook writes,
// and each flag of a command line it writes, compared with what the repository says runs. A value
// given as an env key on one side and as the same setting's flag on the other is the same value.
import { isFlagKey } from "../parse/env.js";
import type { ParsedEnv } from "../parse/env-types.js";
import type { EngineSpec } from "../rules/engines.js";
import type { EnvEdit, PlaybookDeploy } from "./records.js";
import { deployedEnv, gpuKeyOf } from "./overlay.js";

export interface Drift {
  /** The env key (`MAX_MODEL_LEN`) or the flag (`--max-model-len`). */
  key: string;
  /** What the playbook deploys; null when it removes the key or drops the flag. */
  playbookValue: string | null;
  /** What the env file says; null when it does not set it. */
  committedValue: string | null;
  file: string;
  line: number;
}

/** Which env keys and flags name the same setting, and which keys matter when only one side sets them. */
/** A value as a side writes it, and whether a flag wrote it (flags and env keys read units differently). */
interface Written {
  value: string;
  flag: boolean;
}

export interface SettingKeys {
  flagsOf: ReadonlyMap<string, readonly string[]>;
  /**
   * The same quantity however it is spelled (`8G`, `8GiB`, `8589934592`): the caller's reading of a
   * setting's unit (src/model/settings.ts), keyed by env key or flag. Absent: compared as text.
   */
  equal?: (key: string, a: Written, b: Written) => boolean;
  /** Keys the sizing reads (engine settings, ENGINE, HOST, GPU, MODEL, TP): a playbook adding one is drift. */
  sizing: ReadonlySet<string>;
}

const COMMON: [string, string[]][] = [
  ["ENGINE", []],
  ["HOST", []],
  ["GPU", []],
  ["CUDA_VISIBLE_DEVICES", []],
  ["MODEL", ["--model"]],
  ["TP", ["--tensor-parallel-size", "-tp"]],
];

export function settingKeysOf(engine: EngineSpec | undefined): SettingKeys {
  const flagsOf = new Map<string, string[]>(COMMON);
  for (const s of Object.values(engine?.settings ?? {})) {
    if (s.env) flagsOf.set(s.env, [...(s.flags ?? []), ...(s.aliases ?? [])]);
  }
  return { flagsOf, sizing: new Set(flagsOf.keys()) };
}

/** The drifts of one deploy against its committed env file. */
export function driftOf(deploy: PlaybookDeploy, committed: ParsedEnv, keys: SettingKeys = settingKeysOf(undefined)): Drift[] {
  if (deploy.edits.length === 0) return [];
  // The host the play ran on is where the file goes, not a line of it: no drift.
  const deployed = deployedEnv({ ...deploy, edits: deploy.edits.filter((e) => e.kind !== "host") }, committed);
  const keyOfFlag = new Map<string, string>();
  for (const [k, flags] of keys.flagsOf) for (const f of flags) keyOfFlag.set(f, k);
  const lastEdit = new Map<string, EnvEdit>();
  let commandEdit: EnvEdit | null = null;
  let resetEdit: EnvEdit | null = null;
  for (const e of deploy.edits) {
    if (e.kind === "host") continue;
    if (e.kind === "reset") resetEdit = e;
    else if (e.kind === "gpus") lastEdit.set(gpuKeyOf(committed), e);
    else lastEdit.set(e.key, e);
    if (e.kind === "flags" || ((e.kind === "set" || e.kind === "remove") && isFlagKey(e.key))) commandEdit = e;
  }
  const touched = new Set(lastEdit.keys());
  if (resetEdit) {
    for (const k of [...committed.entries.keys(), ...deployed.entries.keys()]) touched.add(k);
    if ([...committed.entries.keys()].some(isFlagKey)) commandEdit ??= resetEdit;
  }
  const out: Drift[] = [];
  for (const key of touched) {
    if (isFlagKey(key)) continue;
    const flags = keys.flagsOf.get(key) ?? [];
    const cv = effective(committed, key, flags);
    const pv = effective(deployed, key, flags);
    if (same(key, cv, pv, keys) || (cv === null && !keys.sizing.has(key))) continue;
    const entry = deployed.entries.get(key);
    const at = entry?.file ? { file: entry.file, line: entry.line } : where(lastEdit.get(key) ?? resetEdit, deploy);
    out.push({ key, playbookValue: pv?.value ?? null, committedValue: cv?.value ?? null, ...at });
  }
  if (commandEdit) {
    const fallback = where(commandEdit, deploy);
    const names = new Set([...committed.flags, ...deployed.flags].map((f) => f.name));
    for (const name of names) {
      const key = keyOfFlag.get(name);
      if (key !== undefined && touched.has(key)) continue;
      const related = key === undefined ? [name] : (keys.flagsOf.get(key) ?? [name]);
      const cv = effective(committed, key, related);
      const pv = effective(deployed, key, related);
      if (same(name, cv, pv, keys)) continue;
      const flag = [...deployed.flags].reverse().find((f) => f.name === name);
      const at = flag?.file ? { file: flag.file, line: flag.line } : fallback;
      out.push({ key: name, playbookValue: pv?.value ?? null, committedValue: cv?.value ?? null, ...at });
    }
  }
  return out;
}

/** The value a setting takes: its last flag (the flag wins), else the env key. A bare switch is "". */
function effective(env: ParsedEnv, key: string | undefined, flags: readonly string[]): Written | null {
  let flag: string | undefined;
  for (const f of env.flags) if (flags.includes(f.name)) flag = f.value ?? "";
  if (flag !== undefined) return { value: flag, flag: true };
  const v = key === undefined ? undefined : env.entries.get(key)?.value;
  return v === undefined ? null : { value: v, flag: false };
}

function where(e: EnvEdit | null | undefined, deploy: PlaybookDeploy): { file: string; line: number } {
  return e ? { file: e.file, line: e.line } : { file: deploy.playbook, line: 1 };
}

function same(key: string, a: Written | null, b: Written | null, keys: SettingKeys): boolean {
  if (a === null || b === null) return a === b;
  if (key === "GPU" || key === "CUDA_VISIBLE_DEVICES") return norm(a.value) === norm(b.value);
  return a.value.trim() === b.value.trim() || keys.equal?.(key, a, b) === true;
}

function norm(list: string): string {
  return list
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "")
    .join(",");
}
