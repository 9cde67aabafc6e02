// The fleet as it runs, from the fleet as its files say it: the one place a deploy file's values are
// laid over an env file. Every consumer (the checks, explain, plan, the Action's card table, usage,
// observe) reads the running face the loader returns; none of them applies an overlay itself.
//
// What runs (docs/deploys.md#the-fleet-as-it-runs):
// - a compose file's service runs what compose gives it: its values over its env file's (compose reads
//   the env file through `env_file` and overrides it), every compose file in path order;
// - a playbook edits or writes the env file on the host: the committed env file is what runs, and
//   `playbook/drift` says when the two disagree. A seat that only a playbook (or a role's template)
//   defines, with no env file committed, runs as that playbook deploys it;
// - a Kubernetes workload runs what its manifest (or the chart's values) gives its container, each
//   replica a seat on its pool's cards (src/load/kubernetes.ts placed them), every file in path order;
// - model files, the observed file, tenants and cards are read once into the fleet (src/load/inputs.ts).
import type { ComposeDeploy, DeployFile, FleetState, K8sDeploy, KubernetesFleet, ParsedEnv, Service } from "../model/types.js";
import type { Policy } from "../config/policy.js";
import type { RulesPack } from "../rules/pack.js";
import { buildService } from "../model/build.js";
import { deployedEnv } from "../playbook/overlay.js";
import { asDeployFile } from "../compose/index.js";

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
  const services = [...state.services];
  const committed = new Set(state.paths);
  for (const d of read.deploys) {
    const i = services.findIndex((s) => s.name === d.service);
    const current = i >= 0 ? (services[i] as Service) : null;
    const deployed = build(deployedEnv(d, current?.env ?? null), d.service);
    const k8s = isK8sDeploy(d);
    const anchor = current?.definedAt ?? (committed.has(deployed.file) && !k8s ? null : deployAnchor(d, read.path));
    if (anchor) deployed.definedAt = anchor;
    if (k8s) deployed.flagsOnly = true;
    if (i >= 0) services[i] = deployed;
    else services.push(deployed);
  }
  return { ...state, services };
}

/** Where a deploy defines its service: a compose service's key, else the deploy's first edit. */
function deployAnchor(d: DeployFile["deploys"][number], path: string): { file: string; line: number } {
  if (isComposeDeploy(d) || isK8sDeploy(d)) return { file: d.file, line: d.line };
  const first = d.edits.find((e) => e.kind !== "reset") ?? d.edits[0];
  return first ? { file: first.file, line: first.line } : { file: path, line: 1 };
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
  for (const r of written.composes ?? []) {
    out = deployFleet(out, asDeployFile(r), build);
    out = withBootOrder(out, r);
  }
  // A systemd unit runs its service as its ExecStart says; its After= + Requires= order its boot.
  for (const r of written.units ?? []) out = deployFleet(out, r, build);
  if (written.kubernetes) out = deployFleet(out, kubernetesDeployFile(written.kubernetes), build);
  return withUnitBootOrder(out, written.units ?? []);
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
