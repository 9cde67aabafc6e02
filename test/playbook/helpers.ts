// Playbook test helpers: YAML written as numbered lines (so expected line numbers are readable), a
// reader over an in-memory repo, and rule-tester cases for the playbook rules.
import type { Case } from "../helpers/rule-tester.js";
import type { FleetState, Service } from "../../src/model/types.js";
import type { EnvEdit, PlaybookRead, ReadOptions } from "../../src/playbook/records.js";
import type { UnitKind } from "../../src/git/types.js";
import { readPlaybook } from "../../src/playbook/plays.js";
import { parseEnv } from "../../src/parse/env.js";
import { serviceNameOf } from "../../src/model/build.js";
import { readFrom, standsFor } from "../helpers/fixture-source.js";

/** Lines joined with newlines; line 1 is the first argument. */
export const lines = (...l: string[]): string => l.join("\n") + "\n";

export const PB = "playbooks/p.yaml";

export function read(files: Record<string, string>, path = PB, opts?: ReadOptions): PlaybookRead {
  return readFrom(readPlaybook(path, new Map(Object.entries(files)), opts), files);
}

/** The edits of one service as compact tuples: [kind, key, value, line, file?]. */
export function edits(r: PlaybookRead, service: string): (string | number)[][] {
  const d = r.deploys.find((x) => x.service === service);
  return (d?.edits ?? []).map((e: EnvEdit) => {
    const row: (string | number)[] = [e.kind];
    if (e.kind === "set" || e.kind === "remove" || e.kind === "flags") row.push(e.key);
    if (e.kind === "set" || e.kind === "flags" || e.kind === "gpus" || e.kind === "host") row.push(e.value);
    row.push(e.line);
    if (e.file !== PB) row.push(e.file);
    return row;
  });
}

/** Where each value a variable holds is written: [key or flag, file, line, variable]. */
export function writtenAt(r: PlaybookRead, service: string): (string | number)[][] {
  const d = r.deploys.find((x) => x.service === service);
  return (d?.edits ?? []).flatMap((e) => {
    if (e.kind !== "set" && e.kind !== "flags") return [];
    const own = e.kind === "set" && e.from ? [[e.key, e.from.file, e.from.line, e.from.name]] : [];
    return [...own, ...(e.flagFrom ?? []).map((f) => [f.flag, f.from.file, f.from.line, f.from.name])];
  });
}

export function problems(r: PlaybookRead): [string, string, number][] {
  return r.problems.map((p) => [p.kind, p.file, p.line]);
}

/** A Service with just what the playbook checks read (name, file, engine, env). */
export function service(file: string, text: string): Service {
  const env = parseEnv(text, file);
  return standsFor(
    {
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
    },
    text,
  );
}

/** A rule-tester case: the services and the playbooks read, the playbooks (or `changed`) in the unit. */
export function playbookCase(
  name: string,
  opts: { services: Service[]; playbooks: PlaybookRead[]; changed?: string[]; kind?: UnitKind },
): Case {
  const fleet: FleetState = { services: opts.services, tenants: [], cards: [], ledgerFacts: {}, paths: [], playbooks: opts.playbooks };
  return { name, fleet, before: null, kind: opts.kind ?? "staged", changed: opts.changed ?? opts.playbooks.map((p) => p.path) };
}
