// The fleet as it runs, from the fleet as its files say it: the one place a deploy file's values are
// laid over an env file. Every consumer (the checks, explain, plan, the Action's card table, usage,
// observe) reads the running face the loader returns; none of them applies an overlay itself.
//
// What runs (docs/deploys.md#the-fleet-as-it-runs):
// - a compose file's service runs what compose gives it: its values over its env file's (compose reads
//   the env file through `env_file` and overrides it), every compose file in path order; as many
//   containers as its replicas (none for 0), and only the services the project's profiles start
//   (COMPOSE_PROFILES, else those without a profile: each profile is checked on its own by the engine);
// - a container given every card of its host (`count: all`, `runtime: nvidia`) runs on the host's
//   cards as the fleet lists them: those CUDA_VISIBLE_DEVICES picks, else the first TP × PP;
// - a playbook edits or writes the env file on the host: the committed env file is what runs, and
//   `playbook/drift` says when the two disagree. A seat that only a playbook (or a role's template)
//   defines, with no env file committed, runs as that playbook deploys it;
// - a Kubernetes workload runs what its manifest (or the chart's values) gives its container, each
//   replica a seat on its pool's cards (src/load/kubernetes.ts placed them), every file in path order;
// - model files, the observed file, tenants and cards are read once into the fleet (src/load/inputs.ts).
import type {
  Card,
  ComposeDeploy,
  ComposeRead,
  DeployFile,
  FleetState,
  K8sDeploy,
  KubernetesFleet,
  ParsedEnv,
  Service,
} from "../model/types.js";
import type { Policy } from "../config/policy.js";
import type { RulesPack } from "../rules/pack.js";
import type { EnvEdit } from "../playbook/records.js";
import { buildService } from "../model/build.js";
import { deployedEnv } from "../playbook/overlay.js";
import { asDeployFile } from "../compose/index.js";
import { unreadCommandOf } from "../model/unread-command.js";

/** Builds a Service from a deployed env, bound to a run's pack and policy. */
export type BuildService = (env: ParsedEnv, name: string) => Service;

export function serviceBuilder(pack: RulesPack, policy: Policy): BuildService {
  return (env, name) => buildService(env, pack, policy, name);
}

/**
 * The fleet as one deploy file leaves it: each service it sets is replaced by (or, when the fleet has
 * none of that name, added as) the service built from its current env with the file's edits laid over.
 * A service with no env file in the repository is anchored at the deploy's own line (`definedAt`), so a
 * finding about the seat as a whole points at a file that exists.
 */
export function deployFleet(state: FleetState, read: DeployFile, build: BuildService): FleetState {
  return deployed(state, read, build).state;
}

/** deployFleet, and the deploys as laid (a compose deploy given every card: with the cards it got). */
function deployed(state: FleetState, read: DeployFile, build: BuildService): { state: FleetState; deploys: DeployFile["deploys"] } {
  const services: (Service | null)[] = [...state.services];
  const at = new Map<string, number>();
  services.forEach((s, i) => at.set((s as Service).name, i));
  const committed = new Set(state.paths);
  const laid: DeployFile["deploys"] = [];
  for (const d0 of read.deploys) {
    const i = at.get(d0.service);
    const current = i === undefined ? null : services[i];
    const compose = isComposeDeploy(d0) ? d0 : null;
    // compose starts no container of a service scaled to 0: the seat does not run.
    if (compose?.replicas === 0) {
      if (i !== undefined) services[i] = null;
      at.delete(d0.service);
      laid.push(d0);
      continue;
    }
    let d = d0;
    const envOf = (x: typeof d): ParsedEnv => {
      const env = deployedEnv(x, current?.env ?? null);
      return d0.engineCommand ? commandOnly(env) : env;
    };
    let service = build(envOf(d), d.service);
    if (compose?.cards?.everyCard) {
      const placed = placedOnHost(compose, service, state.cards);
      if (placed) {
        d = placed;
        service = build(envOf(d), d.service);
      }
    }
    if (d0.engineCommand) service.flagsOnly = true;
    if (compose && compose.replicas > 1) service.replicas = compose.replicas;
    if (current) keepCommitted(service, current);
    const unread = unreadCommandOf(read, d.service) ?? current?.commandUnread;
    if (unread) service.commandUnread = unread;
    // Cards a compose line places are spelled as that line spells them, so advice names it, not GPU.
    const o = service.origins.gpus;
    const placedBy = isComposeDeploy(d) ? d.cards : null;
    if (placedBy && o && o.file === placedBy.file && o.line === placedBy.line)
      service.origins.gpus = { ...o, name: placedBy.via === "all" || placedBy.via === "count" ? "device_ids" : placedBy.via };
    const k8s = isK8sDeploy(d);
    const anchor = current?.definedAt ?? (committed.has(service.file) && !k8s ? null : deployAnchor(d, read.path));
    if (anchor) service.definedAt = anchor;
    if (k8s) service.flagsOnly = true;
    if (i !== undefined && services[i] !== null) services[i] = service;
    else {
      at.set(d.service, services.length);
      services.push(service);
    }
    laid.push(d);
  }
  return { state: { ...state, services: services.filter((s): s is Service => s !== null) }, deploys: laid };
}

/**
 * The env of a container whose process is vLLM's server (PlaybookDeploy.engineCommand): its flags are
 * the command's alone (an env file's SERVE_ARGS reaches the container as a variable nobody expands),
 * and a setting's env key is inert (ParsedEnv.engineFlagsOnly).
 */
function commandOnly(env: ParsedEnv): ParsedEnv {
  return {
    ...env,
    flags: env.flags.filter((f) => f.fromKey === "COMMAND"),
    positionals: env.positionals.filter((p) => p.fromKey === "COMMAND"),
    engineFlagsOnly: true,
  };
}

/**
 * Marks each setting the deploy moved off the env file with the env file's own place for it, so a fix
 * of the running value also writes the committed one (the deploy and its env file then still agree).
 */
function keepCommitted(service: Service, before: Service): void {
  for (const [name, s] of Object.entries(service.settings)) {
    const was = before.settings[name];
    if (!s || !was) continue;
    const committed = was.committed ?? (was.origin.file === before.file ? was.origin : undefined);
    if (committed && committed.file !== s.origin.file) service.settings[name] = { ...s, committed };
  }
}

/**
 * A container given every card of its host runs where CUDA inside it says: the host's cards in index
 * order are its devices 0..N-1, so CUDA_VISIBLE_DEVICES picks among them, and without one vLLM takes
 * the first TP × PP (its workers use cuda:0, cuda:1, …). Null when the host or its cards are unknown,
 * or a pick is past them (the reader's notice, or fleet/unknown-host, says so).
 */
function placedOnHost(d: ComposeDeploy, service: Service, cards: readonly Card[]): ComposeDeploy | null {
  const line = d.cards;
  const every = line?.everyCard;
  if (!line || !every || service.host === null) return null;
  const host = cards
    .filter((c) => c.host === service.host)
    .map((c) => c.index)
    .sort((a, b) => a - b);
  if (host.length === 0) return null;
  const pp = service.settings.pp?.value;
  const ranks = Math.max(1, service.tp) * (typeof pp === "number" && pp > 0 ? pp : 1);
  const picked = every.picks ? every.picks.map((p) => host[p]) : host.slice(0, ranks);
  if (picked.some((c) => c === undefined)) return null;
  const ids = (picked as number[]).map(String);
  const edit: EnvEdit = { kind: "gpus", value: ids.join(","), line: line.line, file: line.file };
  const given = line.given ? { ...line.given, ids: host.map(String) } : null;
  return { ...d, edits: [...d.edits, edit], cards: { ...line, ids, given } };
}

/** Where a deploy defines its service: a compose service's key, else the deploy's first edit. */
function deployAnchor(d: DeployFile["deploys"][number], path: string): NonNullable<Service["definedAt"]> {
  if (isComposeDeploy(d)) return { file: d.file, line: d.line, by: "compose" };
  if (isK8sDeploy(d)) return { file: d.file, line: d.line };
  const first = d.edits.find((e) => e.kind !== "reset") ?? d.edits[0];
  return first ? { file: first.file, line: first.line, by: "playbook" } : { file: path, line: 1, by: "playbook" };
}

/** The deploys of a compose project that start by default: all of them under COMPOSE_PROFILES (the
 *  reader kept only those it enables), else the services without a profile. */
function startedByDefault(r: ComposeRead): ComposeRead["deploys"] {
  return r.activeProfiles !== null ? r.deploys : r.deploys.filter((d) => d.profiles.length === 0);
}

/** The running face of a written fleet (see the head of this file). */
export function runningFleet(written: FleetState, build: BuildService): FleetState {
  let out = written;
  // Seats only a playbook defines: added as the playbook (the last one in path order) deploys them.
  const known = new Set(written.services.map((s) => s.name));
  for (const read of written.playbooks ?? []) {
    const own = read.deploys.filter((d) => !known.has(d.service));
    if (own.length > 0) out = deployFleet(out, { ...read, deploys: own }, build);
  }
  const composes: ComposeRead[] = [];
  for (const r of written.composes ?? []) {
    const got = deployed(out, asDeployFile({ ...r, deploys: startedByDefault(r) }), build);
    out = withBootOrder(got.state, r);
    const placed = new Map(got.deploys.map((d) => [d.service, d]));
    composes.push({ ...r, deploys: r.deploys.map((d) => (placed.get(d.service) as ComposeDeploy | undefined) ?? d) });
  }
  // A systemd unit runs its service as its ExecStart says; its After= + Requires= order its boot.
  for (const r of written.units ?? []) out = deployFleet(out, r, build);
  if (written.kubernetes) out = deployFleet(out, kubernetesDeployFile(written.kubernetes), build);
  out = withUnitBootOrder(out, written.units ?? []);
  return written.composes ? { ...out, composes } : out;
}

function withUnitBootOrder(state: FleetState, units: NonNullable<FleetState["units"]>): FleetState {
  const serviceOfUnit = new Map(units.flatMap((r) => r.deploys.map((d) => [d.unit, d.service] as const)));
  const after = new Map(
    units.flatMap((r) => r.deploys.map((d) => [d.service, d.startsAfter.flatMap((u) => serviceOfUnit.get(u) ?? [])] as const)),
  );
  if (![...after.values()].some((l) => l.length > 0)) return state;
  return {
    ...state,
    services: state.services.map((s) => {
      const first = after.get(s.name);
      return first && first.length > 0 ? { ...s, bootsAfter: [...new Set([...(s.bootsAfter ?? []), ...first])] } : s;
    }),
  };
}

/** Each compose service's healthy-first dependencies as the fleet names them (a compose key → its seat). */
function withBootOrder(state: FleetState, r: NonNullable<FleetState["composes"]>[number]): FleetState {
  const seatOf = new Map(r.deploys.map((d) => [d.composeService, d.service]));
  const after = new Map(r.deploys.map((d) => [d.service, (d.healthyFirst ?? []).map((k) => seatOf.get(k) ?? k)]));
  if (![...after.values()].some((l) => l.length > 0)) return state;
  return {
    ...state,
    services: state.services.map((s) => {
      const first = after.get(s.name);
      return first && first.length > 0 ? { ...s, bootsAfter: [...new Set([...(s.bootsAfter ?? []), ...first])] } : s;
    }),
  };
}

/** The Kubernetes seats as one deploy file: each replica placed on its cards (src/load/kubernetes.ts). */
function kubernetesDeployFile(k: KubernetesFleet): DeployFile {
  return { path: "kubernetes", kind: "kubernetes", deploys: k.seats, problems: [], files: k.reads.flatMap((r) => r.files) };
}

function isK8sDeploy(d: DeployFile["deploys"][number]): d is K8sDeploy {
  return "kubernetes" in d;
}

export function isComposeDeploy(d: DeployFile["deploys"][number]): d is ComposeDeploy {
  return "composeService" in d;
}
