// How playbooks join the engine: which files to load with a snapshot, the reads that go on
// FleetState.playbooks, and the fleet as a playbook deploys it (each service it sets replaced by its
// deployed version) for the sizing checks to run over as one deploy unit.
import picomatch from "picomatch";
import type { Finding, FleetState, ParsedEnv, Service } from "../model/types.js";
import type { CheckContext } from "../checks/define.js";
import type { DecodedFile, FleetReaders } from "../engine/fleet.js";
import type { Policy } from "../config/policy.js";
import type { PlaybookRead } from "./types.js";
import { readPlaybook } from "./read.js";
import { deployedEnv } from "./overlay.js";

/** Folders Ansible reads vars, roles and templates from, wherever they sit in the repo. */
const ANSIBLE_DIRS = /(^|\/)(vars|group_vars|host_vars|roles|templates|files)\//;
const ANSIBLE_TEXT = /\.(ya?ml|j2|env)$/;

/** The paths a snapshot must read for the playbooks: every file under the glob's base folder, and
 *  the YAML/Jinja files of vars, group_vars, roles, templates and files folders anywhere. */
/** Compiled once per glob: the fleet loader asks for every snapshot of a run. */
const matchers = new Map<string, { base: string; isPlaybook: (p: string) => boolean }>();

function matcherOf(glob: string): { base: string; isPlaybook: (p: string) => boolean } {
  let m = matchers.get(glob);
  if (!m) {
    const match = picomatch(glob, { dot: true });
    matchers.set(glob, (m = { base: picomatch.scan(glob).base, isPlaybook: (p) => match(p) }));
  }
  return m;
}

export function playbookPaths(paths: readonly string[], playbooksGlob: string): string[] {
  const { base, isPlaybook } = matcherOf(playbooksGlob);
  return paths.filter((p) => isPlaybook(p) || (base !== "" && p.startsWith(base + "/")) || (ANSIBLE_DIRS.test(p) && ANSIBLE_TEXT.test(p)));
}

/** Reads every playbook of the files loaded; services (name → env file) come from the fleet. */
export function readPlaybooks(files: ReadonlyMap<string, DecodedFile>, playbooksGlob: string, services: ReadonlyMap<string, string>): PlaybookRead[] {
  const { isPlaybook } = matcherOf(playbooksGlob);
  const read = (p: string): string | null => files.get(p)?.text ?? null;
  const out: PlaybookRead[] = [];
  for (const [path, d] of [...files].sort(([a], [b]) => a.localeCompare(b))) {
    if (!isPlaybook(path)) continue;
    if (d.problem) {
      out.push({ path, isPlaybook: false, deploys: [], problems: [{ kind: "parse", file: path, line: 1, message: `${path}: ${d.problem}` }], files: [path] });
    } else if (d.text !== null) out.push(readPlaybook(path, read, { services }));
  }
  return out;
}

/** The FleetReaders entry for src/engine/fleet.ts `loadFleet(..., [playbookReader])`. */
export const playbookReader: FleetReaders = {
  extraPaths: (paths: string[], policy: Policy) => playbookPaths(paths, policy.playbooks),
  enrich(fleet: FleetState, files: Map<string, DecodedFile>, policy: Policy) {
    fleet.playbooks = readPlaybooks(files, policy.playbooks, new Map(fleet.services.map((s) => [s.name, s.file])));
  },
};

/** The playbooks a deploy unit changes (the playbook or any file it reads); all of them under --all. */
export function playbooksInUnit(ctx: Pick<CheckContext, "unit" | "after">): PlaybookRead[] {
  const all = ctx.after.playbooks ?? [];
  if (ctx.unit.kind === "all") return all;
  const changed = new Set(ctx.unit.files.filter((f) => f.after !== null).map((f) => f.path));
  return all.filter((p) => p.files.some((f) => changed.has(f)) || changed.has(p.path));
}

/** Builds a Service from a deployed env (the lead's buildService(env, pack, policy, name)). */
export type BuildService = (env: ParsedEnv, name: string) => Service;

/** The fleet as this playbook deploys it: each service it sets is replaced by (or, when it has no env
 *  file, added as) the service built from the committed env file with the playbook's edits laid over. */
export function deployState(state: FleetState, read: PlaybookRead, build: BuildService): FleetState {
  const services = [...state.services];
  for (const d of read.deploys) {
    const i = services.findIndex((s) => s.name === d.service);
    const committed = i >= 0 ? (services[i] as Service).env : null;
    const deployed = build(deployedEnv(d, committed), d.service);
    if (i >= 0) services[i] = deployed;
    else services.push(deployed);
  }
  return { ...state, services };
}

/** The contexts to run the sizing checks over: one per changed playbook that deploys something,
 *  before = the unit's before, after = the fleet as the playbook deploys it. */
export function playbookContexts(ctx: CheckContext, build: BuildService): { playbook: PlaybookRead; ctx: CheckContext }[] {
  return playbooksInUnit(ctx)
    .filter((p) => p.deploys.length > 0)
    // The playbook checks already ran over the unit; in a deploy context they would only repeat.
    .map((p) => ({ playbook: p, ctx: { ...ctx, after: { ...deployState(ctx.after, p, build), playbooks: [] } } }));
}

/**
 * The findings a playbook's deploy adds: those the unit's own run (`main`) did not already report
 * (same rule, service and message, wherever they point),
 * and a finding placed in a deployed service's committed env file is moved to the playbook's first
 * edit of that service (the deploy is what changed; the env file line stays in data.env_file_line).
 */
export function playbookFindings(main: readonly Finding[], deploy: readonly Finding[], read: PlaybookRead): Finding[] {
  // Where a finding points may move with the deploy (a flag now given by the container's command);
  // what it says about which service is its identity here.
  const id = (f: Finding): string => [f.rule, f.service, f.message].join("\u0000");
  const seen = new Set(main.map(id));
  const out: Finding[] = [];
  for (const f of deploy) {
    if (seen.has(id(f))) continue;
    seen.add(id(f));
    const d = read.deploys.find((x) => x.service === f.service);
    const first = d?.edits.find((e) => e.kind !== "reset") ?? d?.edits[0];
    if (d && first && f.file === d.envFile) {
      out.push({ ...f, file: first.file, line: first.line, data: { ...f.data, env_file_line: f.line } });
    } else out.push(f);
  }
  return out;
}
