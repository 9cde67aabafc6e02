// Playbook test helpers: YAML written as numbered lines (so expected line numbers are readable), a
// reader over an in-memory repo, and a minimal check context for the playbook checks.
import type { CheckContext } from "../../src/checks/define.js";
import type { Policy } from "../../src/config/policy.js";
import type { RulesPack } from "../../src/rules/pack.js";
import type { FleetState, Service } from "../../src/model/types.js";
import type { EnvEdit, PlaybookRead, ReadOptions } from "../../src/playbook/types.js";
import type { ChangedFile, UnitKind } from "../../src/git/types.js";
import { readPlaybook } from "../../src/playbook/read.js";
import { parseEnv } from "../../src/parse/env.js";
import { serviceNameOf } from "../../src/model/build.js";

/** Lines joined with newlines; line 1 is the first argument. */
export const lines = (...l: string[]): string => l.join("\n") + "\n";

export const PB = "playbooks/p.yaml";

export function read(files: Record<string, string>, path = PB, opts?: ReadOptions): PlaybookRead {
  return readPlaybook(path, new Map(Object.entries(files)), opts);
}

/** The edits of one service as compact tuples: [kind, key, value, line, file?]. */
export function edits(r: PlaybookRead, service: string): (string | number)[][] {
  const d = r.deploys.find((x) => x.service === service);
  return (d?.edits ?? []).map((e: EnvEdit) => {
    const row: (string | number)[] = [e.kind];
    if (e.kind === "set" || e.kind === "remove" || e.kind === "flags") row.push(e.key);
    if (e.kind === "set" || e.kind === "flags" || e.kind === "gpus") row.push(e.value);
    row.push(e.line);
    if (e.file !== PB) row.push(e.file);
    return row;
  });
}

export function problems(r: PlaybookRead): [string, string, number][] {
  return r.problems.map((p) => [p.kind, p.file, p.line]);
}

/** A Service with just what the playbook checks read (name, file, engine, env). */
export function service(file: string, text: string): Service {
  const env = parseEnv(text, file);
  return {
    name: serviceNameOf(file),
    file,
    engine: env.entries.get("ENGINE")?.value ?? null,
    host: null,
    gpus: [],
    model: null,
    tp: 1,
    settings: {},
    env,
    origins: {},
    invalid: [],
    conflicts: [],
  } as Service;
}

const VLLM_SPEC = {
  description: "vllm",
  settings: {
    max_model_len: { env: "MAX_MODEL_LEN", flags: ["--max-model-len"], unit: "tokens", description: "" },
    kv_pin: { env: "KV_CACHE_MEMORY_BYTES", flags: ["--kv-cache-memory-bytes"], aliases: ["--kv-cache-memory"], unit: "bytes", description: "" },
  },
};

export const PACK = { engines: { engines: { vllm: VLLM_SPEC } } } as unknown as RulesPack;

export function ctx(opts: { services: Service[]; playbooks: PlaybookRead[]; changed?: string[]; kind?: UnitKind }): CheckContext {
  const after: FleetState = { services: opts.services, tenants: [], cards: [], ledgerFacts: {}, paths: [], playbooks: opts.playbooks };
  const files = (opts.changed ?? opts.playbooks.map((p) => p.path)).map(
    (path): ChangedFile => ({ path, oldPath: null, status: "modified", before: "", after: "", binary: false, size: 0, addedLines: [] }),
  );
  return {
    unit: { kind: opts.kind ?? "staged", id: "staged", commit: null, commits: [], files },
    before: null,
    after,
    policy: {} as Policy,
    pack: PACK,
    env: {},
  };
}
