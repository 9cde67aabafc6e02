// The Kubernetes manifests and Helm values under the `kubernetes` globs (docs/kubernetes.md), read
// into FleetState.kubernetes: each engine workload a deploy, each replica a seat on its pool's cards
// (listed in the fleet like a host's, so every card rule checks them). The running face
// (./running.ts) lays the seats over the fleet.
//
// Placement, as the scheduler may place the pods: a seat holds whole cards (its GPUs per pod, or a
// LeaderWorkerSet group's, and at least one per tensor × pipeline rank); on a pool whose device plugin
// config time-slices or MPS-shares the resource, a card takes up to `replicas` pods. Pods fill the
// cards in path order, then replica order: on a shared pool, what the scheduler may put together is
// put together. A pool with a `count` has that many cards; a replica past them stays Pending.
import type { Card, FleetState } from "../model/types.js";
import type { Policy } from "../config/policy.js";
import type { RulesPack } from "../rules/pack.js";
import type { EnvEdit } from "../playbook/records.js";
import {
  readKubernetesFiles,
  type K8sDeploy,
  type K8sPool,
  type K8sSeat,
  type K8sSource,
  type K8sUnplaced,
  type KubernetesFleet,
  type NodeChoice,
} from "../kubernetes/index.js";
import { buildService } from "../model/build.js";
import { deployedEnv } from "../playbook/overlay.js";
import { tpNeedsCards } from "../model/engine.js";
import { runsEngineCommand } from "../model/recognise.js";
import { MiB } from "../units/bytes.js";
import type { DecodedFile } from "./decode.js";
import type { FleetInput } from "./input.js";
import { pathMatcher } from "./service-index.js";
import { poolOf } from "./kubernetes-pools.js";

const matchers = new Map<string, (p: string) => boolean>();
function isManifestOf(globs: readonly string[]): (p: string) => boolean {
  const key = globs.join("\0");
  let m = matchers.get(key);
  if (!m) {
    const each = globs.map(pathMatcher);
    matchers.set(key, (m = (p) => each.some((f) => f(p))));
  }
  return m;
}

/** A deploy is a seat when its pods ask for a GPU or it runs an engine kvgate recognises. */
function isSeat(d: K8sDeploy, pack: RulesPack, policy: Policy): boolean {
  return d.gpu !== null || buildService(deployedEnv(d, null), pack, policy, d.service).engine !== null;
}

/** Cards a replica holds: its GPUs, and at least one per rank (TP × PP) of an engine that needs them. */
function cardsNeeded(d: K8sDeploy, pack: RulesPack, policy: Policy): { hold: number; ranks: number } {
  const s = buildService(deployedEnv(d, null), pack, policy, d.service);
  const pp = typeof s.settings.pp?.value === "number" ? s.settings.pp.value : 1;
  const ranks = tpNeedsCards(pack, s) ? Math.max(1, s.tp) * Math.max(1, pp) : d.gpusPerReplica;
  return { hold: d.gpusPerReplica === 0 ? 0 : Math.max(d.gpusPerReplica, ranks), ranks };
}

/** Slots used per card of each pool, over one load. */
class Placer {
  private readonly used = new Map<string, number[]>();

  constructor(private readonly fleet: FleetState) {}

  /** `n` distinct cards with a free slot, lowest first; null when the pool has no room. */
  take(pool: K8sPool, n: number): number[] | null {
    const slots = pool.sharing?.replicas ?? 1;
    const fixed = this.hostCards(pool);
    const limit = fixed ? fixed.length : pool.count;
    const used = this.used.get(pool.host) ?? [];
    const picked: number[] = [];
    for (let i = 0; picked.length < n && (limit === null || i < limit); i++) if ((used[i] ?? 0) < slots) picked.push(i);
    if (picked.length < n) return null;
    for (const i of picked) used[i] = (used[i] ?? 0) + 1;
    this.used.set(pool.host, used);
    pool.cardsUsed = Math.max(pool.cardsUsed, ...picked.map((i) => i + 1));
    return fixed ? picked.map((i) => fixed[i] as number) : picked;
  }

  /** A fleet.hosts host's card indices (its cards are already in the fleet). */
  private hostCards(pool: K8sPool): number[] | null {
    if (pool.from !== "fleet.hosts") return null;
    return this.fleet.cards.filter((c) => c.host === pool.host).map((c) => c.index);
  }
}

function cardsOfPool(pool: K8sPool): Card[] {
  if (pool.from === "fleet.hosts") return [];
  const n = pool.count ?? pool.cardsUsed;
  const bytes = Math.round(pool.cudaTotalMib * MiB);
  return Array.from({ length: n }, (_, index) => ({
    host: pool.host,
    index,
    // The card's name picks vLLM's batch defaults (an H100 pool's seats get the H100 budget).
    ...(pool.card ? { name: pool.card } : {}),
    totalBytes: bytes,
    reserveBytes: pool.reserveBytes,
    cudaTotalBytes: bytes,
  }));
}

/** The deploys that run: where two files deploy one workload (a values file and its rendered manifest), the later file's. */
function running(deploys: K8sDeploy[]): K8sDeploy[] {
  const last = new Map<string, K8sDeploy>();
  for (const d of deploys) last.set(`${d.namespace ?? ""}/${d.workload}/${d.container ?? ""}`, d);
  return [...last.values()];
}

/** Seat names: the workload, `/container` when one workload runs several engines, `-<replica>` for several replicas. */
function seatNames(deploys: K8sDeploy[]): Map<K8sDeploy, string> {
  const perWorkload = new Map<string, number>();
  for (const d of deploys) perWorkload.set(d.workload, (perWorkload.get(d.workload) ?? 0) + 1);
  return new Map(
    deploys.map((d) => [d, (perWorkload.get(d.workload) ?? 0) > 1 && d.container ? `${d.workload}/${d.container}` : d.workload]),
  );
}

function readKubernetes(files: ReadonlyMap<string, DecodedFile>, fleet: FleetState, policy: Policy, pack: RulesPack): KubernetesFleet {
  const isManifest = isManifestOf(policy.kubernetes);
  const paths = [...files.keys()].filter(isManifest);
  const source: K8sSource = (p) => {
    const d = files.get(p);
    return d && (d.text !== null || d.problem !== null) ? d : null;
  };
  const read = readKubernetesFiles(paths, source, { runsEngine: (words) => runsEngineCommand(pack.engines.engines, words) });
  const reads = read.reads.map((r) => {
    const deploys = r.deploys.filter((d) => isSeat(d, pack, policy));
    // A value the reader could not resolve for a container that is not a seat is not the gate's notice.
    const dropped = new Set(r.deploys.filter((d) => !deploys.includes(d)).map((d) => d.service));
    const problems = r.problems.filter((p) => p.kind === "parse" || p.service === undefined || !dropped.has(p.service));
    return { ...r, deploys, problems };
  });
  const runs = running(reads.flatMap((r) => r.deploys));
  const names = seatNames(runs);
  const pools = new Map<string, K8sPool>();
  const placer = new Placer(fleet);
  const seats: K8sSeat[] = [];
  const unplaced: K8sUnplaced[] = [];
  for (const d of runs) {
    const base = names.get(d) as string;
    const choice = poolOf(d, policy, read.devicePlugin, pools);
    const need = cardsNeeded(d, pack, policy);
    for (let replica = 0; replica < d.replicas.count; replica++) {
      const seat = d.replicas.count > 1 ? `${base}-${replica}` : base;
      if (!choice.ok) {
        if (need.hold > 0) unplaced.push({ seat, deploy: d, why: "unknown-card", detail: choice.detail, pool: null });
        seats.push({ ...d, service: seat, replica, pool: null, placedBy: null, held: [] });
        continue;
      }
      const held = need.hold > 0 ? placer.take(choice.pool, need.hold) : [];
      if (held === null) {
        unplaced.push({ seat, deploy: d, why: "no-room", detail: choice.pool.host, pool: choice.pool.host });
        continue;
      }
      const edits = placedEdits(d, choice.pool, choice.by, held.slice(0, need.ranks || held.length));
      seats.push({ ...d, service: seat, replica, pool: choice.pool.host, placedBy: choice.by, held, edits });
    }
  }
  for (const pool of pools.values()) fleet.cards.push(...cardsOfPool(pool));
  return { reads, seats, pools: [...pools.values()], unplaced, devicePlugin: read.devicePlugin };
}

/** The deploy's edits, with the pool as its host and its ranks' cards as its GPUs (at the lines that place them). */
function placedEdits(d: K8sDeploy, pool: K8sPool, by: NodeChoice | null, cards: number[]): EnvEdit[] {
  const at = by ?? { file: d.file, line: d.line };
  const gpuAt = d.gpu ?? { file: d.file, line: d.line };
  const out: EnvEdit[] = [...d.edits, { kind: "set", key: "HOST", value: pool.host, line: at.line, file: at.file }];
  if (cards.length > 0) out.push({ kind: "gpus", value: cards.join(","), line: gpuAt.line, file: gpuAt.file });
  return out;
}

export const kubernetes: FleetInput = {
  kind: "Kubernetes manifests",
  paths: ({ listing, policy }) => listing.filter(isManifestOf(policy.kubernetes)),
  add(fleet, files, { policy, pack }) {
    const k = readKubernetes(files, fleet, policy, pack);
    if (k.reads.length > 0) fleet.kubernetes = k;
  },
};
