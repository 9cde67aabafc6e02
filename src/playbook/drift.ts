// Where a playbook's deploy and the committed env file disagree: each env key the playbook writes,
// and each flag of a command line it writes, compared with what the repository says runs.
import { isFlagKey } from "../parse/env.js";
import type { ParsedEnv } from "../model/types.js";
import type { EnvEdit, PlaybookDeploy } from "./types.js";
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

/** The drifts of one deploy against its committed env file (null: the env file is not committed). */
export function driftOf(deploy: PlaybookDeploy, committed: ParsedEnv | null): Drift[] {
  if (!committed || deploy.edits.length === 0) return [];
  const deployed = deployedEnv(deploy, committed);
  const lastEdit = new Map<string, EnvEdit>();
  let commandEdit: EnvEdit | null = null;
  let resetEdit: EnvEdit | null = null;
  for (const e of deploy.edits) {
    if (e.kind === "reset") resetEdit = e;
    else if (e.kind === "gpus") lastEdit.set(gpuKeyOf(committed), e);
    else lastEdit.set(e.key, e);
    if ((e.kind === "flags" || ((e.kind === "set" || e.kind === "remove") && isFlagKey(e.key)))) commandEdit = e;
  }
  const keys = new Set(lastEdit.keys());
  if (resetEdit) for (const k of [...committed.entries.keys(), ...deployed.entries.keys()]) keys.add(k);
  if (resetEdit && [...committed.entries.keys()].some(isFlagKey)) commandEdit ??= resetEdit;
  const out: Drift[] = [];
  for (const key of keys) {
    if (isFlagKey(key)) continue;
    const cv = committed.entries.get(key)?.value ?? null;
    const entry = deployed.entries.get(key);
    const pv = entry?.value ?? null;
    if (same(key, cv, pv)) continue;
    const at = entry?.file ? { file: entry.file, line: entry.line } : where(lastEdit.get(key) ?? resetEdit, deploy);
    out.push({ key, playbookValue: pv, committedValue: cv, ...at });
  }
  if (commandEdit) out.push(...flagDrift(committed, deployed, where(commandEdit, deploy)));
  return out;
}

function where(e: EnvEdit | null | undefined, deploy: PlaybookDeploy): { file: string; line: number } {
  return e ? { file: e.file, line: e.line } : { file: deploy.playbook, line: 1 };
}

function same(key: string, a: string | null, b: string | null): boolean {
  if (a === null || b === null) return a === b;
  if (key === "GPU" || key === "CUDA_VISIBLE_DEVICES") return norm(a) === norm(b);
  return a.trim() === b.trim();
}

function norm(list: string): string {
  return list.split(",").map((s) => s.trim()).filter((s) => s !== "").join(",");
}

/** Flags compared by name (last one wins, as on a command line), so reordering is not drift. */
function flagDrift(committed: ParsedEnv, deployed: ParsedEnv, fallback: { file: string; line: number }): Drift[] {
  const last = (env: ParsedEnv): Map<string, { value: string | null; file?: string; line: number }> => {
    const m = new Map<string, { value: string | null; file?: string; line: number }>();
    for (const f of env.flags) m.set(f.name, { value: f.value, line: f.line, ...(f.file ? { file: f.file } : {}) });
    return m;
  };
  const before = last(committed);
  const after = last(deployed);
  const out: Drift[] = [];
  for (const name of new Set([...before.keys(), ...after.keys()])) {
    const b = before.get(name);
    const a = after.get(name);
    const bv = b ? (b.value ?? "") : null;
    const av = a ? (a.value ?? "") : null;
    if (bv === av) continue;
    const at = a?.file ? { file: a.file, line: a.line } : fallback;
    out.push({ key: name, playbookValue: av, committedValue: bv, ...at });
  }
  return out;
}
