// A rule table's case as the files a user writes, for the rule pages. A `files` case is shown as it
// is; a case built in memory (a fleet of hand-built services, a secret scan's added files) is shown as
// the env files, ledger facts and kvgate.yaml its fixtures recorded (test/helpers/fixture-source.ts).
// Either way the page shows only what `verified` confirms: the files, run through the real loader and
// engine, raise exactly the findings the case raised.
import { Document, isScalar, isSeq, visit } from "yaml";
import type { Config } from "../../src/config/schema.js";
import type { FleetState, Tenant } from "../../src/model/types.js";
import type { Trailer } from "../../src/git/types.js";
import { configOf, filesOf, textOf } from "../helpers/fixture-source.js";
import { defaultPolicy, findingsOf, type Actual, type Case, type RuleTable } from "../helpers/rule-tester.js";

/** A case as a repository: the files after the change, before it (null: `--all`), and how it is run. */
export interface ShownCase {
  name: string;
  files: Record<string, string>;
  before: Record<string, string> | null;
  env: Record<string, string>;
  message?: string;
  trailers?: Trailer[];
  /** An audited commit (`kvgate audit`): the files it added to. */
  audit: boolean;
}

const GiB = 2 ** 30;
const MiB = 2 ** 20;

function quantity(bytes: number): string | number {
  if (bytes % GiB === 0) return `${bytes / GiB}GiB`;
  if (bytes % MiB === 0) return `${bytes / MiB}MiB`;
  return bytes;
}

function tenantEntry(t: Tenant): Record<string, unknown> {
  return { name: t.name, host: t.host, gpu: t.gpu, vram: quantity(t.vramBytes), ...(t.pin ? { pin: true } : {}) };
}

/** kvgate.yaml for a config (and the fleet's tenants); null when the file would be empty. */
function configYaml(config: Config, tenants: readonly Tenant[]): string | null {
  const all: Config = tenants.length === 0 ? config : { ...config, fleet: { ...config.fleet, tenants: tenants.map(tenantEntry) as never } };
  if (Object.keys(all).length === 0) return null;
  // A card or a tenant on one line, as kvgate.yaml is usually written: `- { index: 0, total: 96GiB }`.
  const doc = new Document(all);
  visit(doc, {
    Map(_key, node, path) {
      if (isSeq(path[path.length - 1]) && node.items.every((p) => isScalar(p.value))) node.flow = true;
    },
  });
  return doc.toString({ lineWidth: 0 });
}

/** The files a hand-built fleet stands for; null when one of its parts recorded none. */
function fleetFiles(state: FleetState): Record<string, string> | null {
  if ((state.composes ?? []).length > 0 || state.observed || state.modelFiles) return null;
  const out: Record<string, string> = {};
  for (const read of state.playbooks ?? []) {
    const files = filesOf(read);
    if (files === undefined) return null;
    Object.assign(out, files);
  }
  for (const s of state.services) {
    const text = textOf(s);
    if (text === undefined) return null;
    out[s.file] = text;
  }
  for (const entry of Object.values(state.ledgerFacts)) {
    const text = textOf(entry);
    if (text === undefined) return null;
    out[entry.file] = text;
  }
  return out;
}

function withConfig(files: Record<string, string> | null, c: Case, tenants: readonly Tenant[]): Record<string, string> | null {
  if (files === null) return null;
  const config = configOf(c.policy ?? defaultPolicy());
  if (config === undefined) return null;
  const yaml = configYaml(config, tenants);
  if (yaml === null) return files;
  if (files["kvgate.yaml"] !== undefined) return null;
  return { "kvgate.yaml": yaml, ...files };
}

/** The case as files, or null when it cannot be shown as files. */
function shownOf(c: Case): ShownCase | null {
  const common = { name: c.name, env: c.env ?? {}, message: c.message, trailers: c.trailers };
  if (c.commit) {
    const files = Object.fromEntries(c.commit.files.filter((f) => f.after !== null).map((f) => [f.path, f.after as string]));
    return { ...common, files, before: null, audit: true };
  }
  if (c.files) {
    const files = c.policy === undefined ? c.files : withConfig(c.files, c, []);
    return files && { ...common, files, before: c.beforeFiles === undefined ? null : c.beforeFiles, audit: false };
  }
  if (!c.fleet) return null;
  const added = (c.changed ?? []).filter((f) => typeof f !== "string");
  if (added.length > 0) {
    // A scan of added files (the secret cases): each file as it is after the change, new.
    if (added.some((f) => f.status !== "added" || f.after === null || f.binary)) return null;
    const files = withConfig(Object.fromEntries(added.map((f) => [f.path, f.after as string])), c, []);
    return files && { ...common, files, before: {}, audit: false };
  }
  const after = withConfig(fleetFiles(c.fleet), c, c.fleet.tenants);
  if (after === null) return null;
  if (c.before) {
    const before = withConfig(fleetFiles(c.before), c, c.before.tenants);
    return before && { ...common, files: after, before, audit: false };
  }
  // A change with no before fleet (the playbook cases): the files it names are new, the rest were there.
  const changed = new Set((c.changed ?? []).filter((f) => typeof f === "string"));
  const before = c.kind === "all" || changed.size === 0 ? null : Object.fromEntries(Object.entries(after).filter(([p]) => !changed.has(p)));
  return { ...common, files: after, before, audit: false };
}

/** The shown case as a rule-tester case read by the real loader (kvgate.yaml from its files). */
export function asFilesCase(s: ShownCase): Case {
  return {
    name: s.name,
    files: s.files,
    beforeFiles: s.before,
    env: s.env,
    ...(s.message === undefined ? {} : { message: s.message }),
    ...(s.trailers === undefined ? {} : { trailers: s.trailers }),
  };
}

const brief = (f: Actual) => JSON.stringify([f.rule, f.messageId, f.status, f.severity, f.file, f.line, f.message]);

/**
 * The case as files with the findings of the table's rules they raise, when the files raise exactly
 * what the case raised (same rule, message, place and status); null otherwise.
 */
export async function verified(table: RuleTable, c: Case): Promise<{ shown: ShownCase; findings: Actual[] } | null> {
  const shown = shownOf(c);
  if (shown === null) return null;
  const expected = await findingsOf(table, c);
  if (shown.audit) return { shown, findings: expected };
  const actual = await findingsOf(table, asFilesCase(shown));
  return actual.map(brief).join("\n") === expected.map(brief).join("\n") ? { shown, findings: actual } : null;
}
