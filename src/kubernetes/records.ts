// What the Kubernetes reader returns (docs/kubernetes.md): per engine workload (a Deployment,
// StatefulSet, LeaderWorkerSet, KServe InferenceService, or a vLLM production-stack modelSpec), the
// settings it deploys as env edits with the file and line that writes each, what it asks of the GPUs,
// how many pods it runs and where they may land. A K8sDeploy is a PlaybookDeploy, so the overlay
// takes it unchanged; src/load/kubernetes.ts turns each replica into a seat on a pool's cards.
import type { PlaybookDeploy, PlaybookProblem } from "../playbook/records.js";

export type WorkloadKind = "Deployment" | "StatefulSet" | "LeaderWorkerSet" | "InferenceService" | "Pod" | "modelSpec";

/** What each pod asks of the GPUs (`resources.limits`), as written. */
export interface GpuAsk {
  /** `nvidia.com/gpu`, `nvidia.com/gpu.shared`, `nvidia.com/mig-3g.40gb`. */
  resource: string;
  /** Whole devices per pod; 0 when none (a fractional requestGPU the chart truncates, say). */
  count: number;
  raw: string;
  /** How the file spells it: `nvidia.com/gpu` (a limits key), `requestGPU` (production-stack). */
  key: string;
  file: string;
  line: number;
}

/** A constraint on the nodes a pod lands on: a nodeSelector entry, a required node-affinity term, or nodeName. */
export interface NodeChoice {
  /** The label (`nvidia.com/gpu.product`, `cloud.google.com/gke-nodepool`), or `nodeName`. */
  key: string;
  /** The values it accepts (one for a nodeSelector). */
  values: string[];
  /** How the file spells it: `nodeSelector`, `nodeAffinity`, `nodeSelectorTerms`, `nodeName`. */
  via: string;
  file: string;
  line: number;
}

export interface Replicas {
  count: number;
  /** `replicas`, `replicaCount`, `maxReplicas`, `keda.maxReplicaCount`, or `default` when nothing says. */
  via: string;
  file: string;
  line: number;
}

export interface K8sDeploy extends PlaybookDeploy {
  /** The manifest or values file (the file matching the `kubernetes` globs; `playbook` holds it too). */
  kubernetes: string;
  kind: WorkloadKind;
  /** metadata.name, or the modelSpec's name: what the seats are named after. */
  workload: string;
  /** The engine container's name (null for a production-stack modelSpec or a KServe model). */
  container: string | null;
  namespace: string | null;
  /** Where the workload (or the modelSpec item) is defined. */
  file: string;
  line: number;
  replicas: Replicas;
  /** Pods per replica: a LeaderWorkerSet group's `size` (1 for everything else). */
  podsPerReplica: number;
  gpu: GpuAsk | null;
  /** GPUs one replica holds: the pod's, or a LeaderWorkerSet group's (leader + size − 1 workers). */
  gpusPerReplica: number;
  nodes: NodeChoice[];
}

/** Same shape as a PlaybookProblem. `parse` (error): a file kubectl or helm would refuse, or one kvgate
 *  cannot read within its limits. `unresolved` (notice): a value kvgate cannot read from the repository. */
export type K8sProblem = PlaybookProblem;

export interface K8sRead {
  path: string;
  /** False for valid YAML that holds no workload, ConfigMap, device plugin config or values kvgate reads. */
  isKubernetes: boolean;
  deploys: K8sDeploy[];
  problems: K8sProblem[];
  /** Every file the read used: itself, and the files of the ConfigMaps and runtimes it loads. */
  files: string[];
}

/** The NVIDIA device plugin's sharing of one resource (`sharing.timeSlicing` or `sharing.mps`). */
export interface SharingConfig {
  /** The config's name: the ConfigMap data key or the device plugin chart's `config.map` key (`default` for a plain file). */
  name: string;
  kind: "time-slicing" | "mps";
  /** The resource shared (`nvidia.com/gpu`), as pods then ask for it (`nvidia.com/gpu.shared` when renamed). */
  resource: string;
  /** Pods that may share one card. */
  replicas: number;
  file: string;
  line: number;
}

/** The repository's device plugin configs, and the config its chart or ClusterPolicy names as the default. */
export interface DevicePluginConfigs {
  configs: SharingConfig[];
  /** Every config name the repository defines (with or without sharing). */
  names: string[];
  /** `config.default` of the device plugin's values, or the ClusterPolicy's `devicePlugin.config.default`. */
  default: string | null;
}

export interface KubernetesReads {
  reads: K8sRead[];
  devicePlugin: DevicePluginConfigs;
}

/** How the reader finds files: over what the caller already loaded (null when not in the repo). */
export type K8sSource = (path: string) => { text: string | null; problem: string | null } | null;

/**
 * A pool of cards pods land on (docs/kubernetes.md): a kvgate.yaml `fleet.pools` entry, a card a
 * `nvidia.com/gpu.product` label names, or a `fleet.hosts` host a nodeName names. Its cards are listed
 * in the fleet under `host`, so every card rule checks them.
 */
export interface K8sPool {
  /** The fleet host its cards are listed under: `k8s:<pool>` (`k8s:<pool>/mig-3g.40gb` for a MIG slice), or the fleet.hosts host. */
  host: string;
  name: string;
  /** Where the pool comes from: `fleet.pools`, the node label it was found by, or `fleet.hosts`. */
  from: string;
  /** The card's name (rules/cards.yaml), the MIG profile for a slice, or null when only cuda_total_mib says. */
  card: string | null;
  cudaTotalMib: number;
  reserveBytes: number;
  /** Cards (or slices) in the pool; null: as many as its pods ask for. */
  count: number | null;
  /** The device plugin sharing that makes each card several pods'; null: one pod per card. */
  sharing: SharingConfig | null;
  /** Cards the pool's pods were placed on. */
  cardsUsed: number;
}

/** One replica of a deploy, placed: a seat of the fleet. */
export interface K8sSeat extends K8sDeploy {
  replica: number;
  /** The pool's host; null when no card is known. */
  pool: string | null;
  /** The node constraint that put it in the pool (null: the only pool kvgate.yaml lists, or none). */
  placedBy: NodeChoice | null;
  /** The cards the replica holds (it may hold more than its ranks use). */
  held: number[];
}

/** A replica kvgate cannot place on cards. */
export interface K8sUnplaced {
  seat: string;
  deploy: K8sDeploy;
  /** `unknown-card`: nothing says which card its nodes carry; `no-room`: the pool's cards are all taken. */
  why: "unknown-card" | "no-room";
  detail: string;
  pool: string | null;
}

/** The Kubernetes face of a fleet, as src/load/kubernetes.ts reads it. */
export interface KubernetesFleet {
  /** Every file read, each with the deploys of its engine workloads and its problems. */
  reads: K8sRead[];
  /** The replicas that run (where two files deploy one workload, the later file's), placed on cards. */
  seats: K8sSeat[];
  pools: K8sPool[];
  unplaced: K8sUnplaced[];
  devicePlugin: DevicePluginConfigs;
}
