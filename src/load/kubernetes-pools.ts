// Which pool of cards a Kubernetes workload's pods land on, and what each card is (docs/kubernetes.md#pools):
// a `fleet.pools` entry a nodeSelector or required node-affinity value names (or whose card the
// `nvidia.com/gpu.product` label names); else the card that label (or GKE's accelerator label) names,
// from rules/cards.yaml; else the `fleet.hosts` host a nodeName or `kubernetes.io/hostname` names;
// else the only `fleet.pools` entry. A MIG resource (`nvidia.com/mig-3g.40gb`, or a product label
// ending in `-MIG-3g.40gb`) makes the card the slice. Where several values could match, the pool with
// the smallest card is the one checked (the pod may land there).
import type { Policy, PoolPolicy } from "../config/policy.js";
import type { DevicePluginConfigs, K8sDeploy, K8sPool, NodeChoice, SharingConfig } from "../kubernetes/index.js";
import { cardKey, knownCard, migSliceMib } from "../rules/cards.js";

const PRODUCT_LABELS = new Set(["nvidia.com/gpu.product", "cloud.google.com/gke-accelerator"]);
const HOST_LABELS = new Set(["nodeName", "kubernetes.io/hostname"]);
const PLUGIN_CONFIG_LABEL = "nvidia.com/device-plugin.config";
const MIG_RESOURCE = /^nvidia\.com\/mig-(\d+g\.\d+gb)(\.shared)?$/;
const MIG_PRODUCT = /-MIG-(\d+g\.\d+gb)$/i;

export type PoolChoice = { ok: true; pool: K8sPool; by: NodeChoice | null } | { ok: false; detail: string };

interface Candidate {
  name: string;
  from: string;
  card: string | null;
  cudaTotalMib: number | null;
  reserveBytes: number;
  count: number | null;
  host: string | null;
  configName: string | null;
  /** The node constraint that names the pool; null for the only pool of kvgate.yaml. */
  by: NodeChoice | null;
  /** Why it has no figure, when it has none. */
  missing?: string;
}

function fromPolicy(name: string, p: PoolPolicy, profile: string | null, by: NodeChoice | null): Candidate {
  const known = p.card ? knownCard(p.card) : null;
  const total = profile ? (p.cuda_total_mib ?? migSliceMib(profile)) : (p.cuda_total_mib ?? known?.cudaTotalMib ?? null);
  return {
    name,
    from: "fleet.pools",
    card: profile ? `MIG ${profile}` : (known?.name ?? p.card),
    cudaTotalMib: total,
    reserveBytes: p.reserve_bytes,
    count: p.count,
    host: null,
    configName: p.device_plugin_config,
    by,
    ...(total === null
      ? { missing: `fleet.pools.${name}.card ${p.card ?? ""} is not in rules/cards.yaml: give the pool's cuda_total_mib` }
      : {}),
  };
}

function candidatesOf(d: K8sDeploy, policy: Policy): Candidate[] {
  const resourceProfile = d.gpu ? (MIG_RESOURCE.exec(d.gpu.resource)?.[1] ?? null) : null;
  const pools = Object.entries(policy.fleet.pools);
  const out: Candidate[] = [];
  for (const choice of d.nodes) {
    for (const value of choice.values) {
      const named = policy.fleet.pools[value];
      if (named) out.push(fromPolicy(value, named, resourceProfile, choice));
      if (PRODUCT_LABELS.has(choice.key)) {
        const profile = resourceProfile ?? MIG_PRODUCT.exec(value)?.[1] ?? null;
        const product = value.replace(MIG_PRODUCT, "");
        const known = knownCard(product);
        const byCard = pools.find(
          ([, p]) =>
            p.card !== null && (cardKey(p.card) === cardKey(product) || (known !== null && knownCard(p.card)?.name === known.name)),
        );
        if (byCard) out.push(fromPolicy(byCard[0], byCard[1], profile, choice));
        else
          out.push({
            name: value,
            from: choice.key,
            card: profile ? `MIG ${profile}` : (known?.name ?? null),
            cudaTotalMib: profile ? migSliceMib(profile) : (known?.cudaTotalMib ?? null),
            reserveBytes: 0,
            count: null,
            host: null,
            configName: null,
            by: choice,
            ...(known || profile
              ? {}
              : {
                  missing: `${choice.key}: ${value} is not a card in rules/cards.yaml: add a fleet.pools entry named ${value} with its cuda_total_mib`,
                }),
          });
      }
      const host = HOST_LABELS.has(choice.key) ? policy.fleet.hosts[value] : undefined;
      if (host && host.gpus.length > 0) {
        const smallest = Math.min(...host.gpus.map((g) => g.cuda_total_bytes ?? g.total_bytes));
        out.push({
          name: value,
          from: "fleet.hosts",
          card: null,
          cudaTotalMib: smallest / 2 ** 20,
          reserveBytes: 0,
          count: host.gpus.length,
          host: value,
          configName: null,
          by: choice,
        });
      }
    }
  }
  if (out.length === 0 && pools.length === 1) {
    const [name, p] = pools[0] as [string, PoolPolicy];
    out.push(fromPolicy(name, p, resourceProfile, null));
  }
  return out;
}

/** The device plugin config a pool's nodes use: the pool's, the workload's node label, the default, or the only one. */
function sharingOf(d: K8sDeploy, c: Candidate, plugin: DevicePluginConfigs): SharingConfig | null {
  const label = d.nodes.find((n) => n.key === PLUGIN_CONFIG_LABEL)?.values[0] ?? null;
  const name = c.configName ?? label ?? plugin.default ?? (plugin.names.length === 1 ? (plugin.names[0] as string) : null);
  if (name === null || !d.gpu) return null;
  return plugin.configs.find((s) => s.name === name && s.resource === d.gpu?.resource) ?? null;
}

/** The pool a deploy's pods land on; `pools` holds the pools met so far (a pool is one object per run). */
export function poolOf(d: K8sDeploy, policy: Policy, plugin: DevicePluginConfigs, pools: Map<string, K8sPool>): PoolChoice {
  const candidates = candidatesOf(d, policy);
  const sized = candidates.filter((c) => c.cudaTotalMib !== null);
  if (sized.length === 0) {
    const why = candidates.find((c) => c.missing)?.missing;
    return {
      ok: false,
      detail:
        why ??
        "its pods name no GPU pool: add a nodeSelector nvidia.com/gpu.product (a card of " +
          "rules/cards.yaml), or a fleet.pools entry in kvgate.yaml and a nodeSelector naming it",
    };
  }
  const c = sized.reduce((a, b) => ((b.cudaTotalMib as number) < (a.cudaTotalMib as number) ? b : a));
  const profile = c.card?.startsWith("MIG ") ? c.card.slice(4) : null;
  const host = c.host ?? `k8s:${c.name}${profile && !c.name.toUpperCase().endsWith(profile.toUpperCase()) ? `/mig-${profile}` : ""}`;
  const got = pools.get(host);
  if (got) return { ok: true, pool: got, by: c.by };
  const pool: K8sPool = {
    host,
    name: c.name,
    from: c.from,
    card: c.card,
    cudaTotalMib: c.cudaTotalMib as number,
    reserveBytes: c.reserveBytes,
    count: c.count,
    sharing: sharingOf(d, c, plugin),
    cardsUsed: 0,
  };
  pools.set(host, pool);
  return { ok: true, pool, by: c.by };
}
