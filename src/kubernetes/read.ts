// The Kubernetes reader (docs/kubernetes.md): every manifest and values file under the
// `kubernetes` globs, read in two passes: first what the files hold for each other (ConfigMaps,
// KServe ServingRuntimes, the NVIDIA device plugin's configs), then one deploy per engine workload.
// It never throws and never touches the disk: files come through a callback over what the caller
// already loaded, and what it cannot read it reports.
import type { DevicePluginConfigs, K8sDeploy, K8sRead, K8sSource, KubernetesReads } from "./records.js";
import type { ConfigMapData } from "./container.js";
import { parseYamlDocs } from "./yaml.js";
import { get, entriesOf, textOf, type KNode } from "./tree.js";
import { isWorkloadKind, metadataOf, workloadDeploys } from "./workloads.js";
import { inferenceServiceDeploys, runtimeContainer } from "./kserve.js";
import { isProductionStackValues, productionStackDeploys } from "./production-stack.js";
import { readDevicePlugin } from "./device-plugin.js";
import type { PodContext } from "./pod.js";

export interface KubernetesReadOptions {
  /** True for the words of a command that runs an engine: picks the server out of a `sh -c` script. */
  runsEngine: (words: readonly string[]) => boolean;
}

/**
 * Files that hold nothing kvgate reads are not parsed: a repository's deploy/ folder is mostly
 * Services, Ingresses and CRDs. What might matter names a kind kvgate reads, the chart's
 * servingEngineSpec, or the device plugin's sharing.
 */
const RELEVANT =
  /\bkind\s*:\s*["']?(Deployment|StatefulSet|LeaderWorkerSet|InferenceService|Pod|ConfigMap|ServingRuntime|ClusterServingRuntime|ClusterPolicy)\b|\bservingEngineSpec\s*:|\bsharing\s*:|\btimeSlicing\s*:|\bdevicePlugin\s*:/;

interface Doc {
  path: string;
  tree: KNode;
  kind: string | null;
}

function readOne(path: string, source: K8sSource, read: K8sRead, docs: Doc[]): void {
  const got = source(path);
  if (got === null) return;
  if (got.problem !== null || got.text === null) {
    read.problems.push({ kind: "parse", file: path, line: 1, message: `${path}: ${got.problem ?? "the file cannot be read as text"}` });
    return;
  }
  if (!RELEVANT.test(got.text)) return;
  const parsed = parseYamlDocs(path, got.text);
  for (const p of parsed.problems)
    read.problems.push({ kind: "parse", file: path, line: p.line, message: `${p.message}; kubectl and helm refuse the file` });
  for (const d of parsed.docs) if (d.tree?.t === "map") docs.push({ path, tree: d.tree, kind: textOf(get(d.tree, "kind")) });
}

function configMapOf(doc: KNode, path: string): ConfigMapData | null {
  const meta = metadataOf(doc);
  if (meta.name === null) return null;
  const data = new Map<string, { value: string; pos: { file: string; line: number } }>();
  for (const [k, e] of entriesOf(get(doc, "data"))) {
    const v = textOf(e.value);
    if (v !== null) data.set(k, { value: v, pos: e.keyPos });
  }
  return { name: meta.name, namespace: meta.namespace, file: path, data };
}

export function readKubernetesFiles(paths: readonly string[], source: K8sSource, opts: KubernetesReadOptions): KubernetesReads {
  const sorted = [...paths].sort((a, b) => a.localeCompare(b));
  const reads = new Map<string, K8sRead>();
  const docs: Doc[] = [];
  for (const path of sorted) {
    const read: K8sRead = { path, isKubernetes: false, deploys: [], problems: [], files: [path] };
    reads.set(path, read);
    readOne(path, source, read, docs);
  }
  const configMaps: ConfigMapData[] = [];
  const runtimes = new Map<string, KNode>();
  const devicePlugin: DevicePluginConfigs = { configs: [], names: [], default: null };
  for (const d of docs) {
    const read = reads.get(d.path) as K8sRead;
    if (d.kind === "ConfigMap") {
      const cm = configMapOf(d.tree, d.path);
      if (cm) configMaps.push(cm);
    }
    if (d.kind === "ServingRuntime" || d.kind === "ClusterServingRuntime") {
      const name = metadataOf(d.tree).name;
      const c = runtimeContainer(d.tree);
      if (name && c) runtimes.set(name, c);
    }
    if (readDevicePlugin(d.tree, d.kind, devicePlugin, read.problems)) read.isKubernetes = true;
    if (d.kind !== null) read.isKubernetes = true;
  }
  const lookupConfigMap = (name: string, namespace: string | null): ConfigMapData | null =>
    configMaps.find((c) => c.name === name && (namespace === null || c.namespace === null || c.namespace === namespace)) ?? null;
  for (const d of docs) {
    const read = reads.get(d.path) as K8sRead;
    const ctx: PodContext = { problems: read.problems, configMaps: lookupConfigMap, runsEngine: opts.runsEngine, files: read.files };
    const deploys: K8sDeploy[] =
      d.kind === null
        ? isProductionStackValues(d.tree)
          ? productionStackDeploys(d.path, d.tree, read.problems)
          : []
        : isWorkloadKind(d.kind)
          ? workloadDeploys(d.path, d.tree, d.kind, ctx)
          : d.kind === "InferenceService"
            ? inferenceServiceDeploys(d.path, d.tree, ctx, (n) => runtimes.get(n) ?? null)
            : [];
    if (d.kind === null && isProductionStackValues(d.tree)) read.isKubernetes = true;
    read.deploys.push(...deploys);
  }
  return { reads: [...reads.values()].filter((r) => r.isKubernetes || r.problems.length > 0), devicePlugin };
}
