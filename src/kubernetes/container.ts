// One container of a pod as the settings it deploys: its image, its command line (./command.ts), the
// variables the engine itself reads (`VLLM_*`, and kvgate's own overrides), and what it asks of the
// GPUs. Variables come from `env` over `envFrom` (core/v1 EnvFromSource: `env` wins, a later source
// wins over an earlier one), each ConfigMap read from the repository.
import type { EnvEdit } from "../playbook/records.js";
import { commandOf, type CommandContext, type VarLookup } from "./command.js";
import { entriesOf, get, itemsOf, keyPosOf, textOf, type KNode, type Pos } from "./tree.js";
import type { GpuAsk, K8sProblem } from "./records.js";

/** A ConfigMap of the repository: its data, each value with where it is written. */
export interface ConfigMapData {
  name: string;
  namespace: string | null;
  file: string;
  data: Map<string, { value: string; pos: Pos }>;
}

export type ConfigMaps = (name: string, namespace: string | null) => ConfigMapData | null;

/**
 * A container's variables are the engine's environment, not kvgate's: vLLM reads `VLLM_*` (and no
 * MAX_MODEL_LEN), so only those, and kvgate's own overrides, are settings. Any other variable reaches
 * the engine only through `$(VAR)` in its command, which ./command.ts expands.
 */
const ENGINE_KEYS = /^(VLLM_[A-Z0-9_]+|ENGINE|WEIGHTS_MIB|OVERHEAD_MIB|KV_BYTES_PER_TOKEN|MODEL_CONFIG)$/;

/** HAMi's memory and core shares are not devices (`nvidia.com/gpumem`): they are not what a pod is given cards by. */
const NOT_DEVICES = /^nvidia\.com\/gpu(mem|mem-percentage|cores)$/;

function isGpuResource(name: string): boolean {
  return (/^nvidia\.com\//.test(name) && !NOT_DEVICES.test(name)) || name === "amd.com/gpu";
}

interface Var {
  value: string | null;
  pos: Pos;
}

export interface ContainerRead {
  edits: EnvEdit[];
  gpu: GpuAsk | null;
  /** The ConfigMap files read. */
  files: string[];
}

export interface ContainerContext extends CommandContext {
  configMaps: ConfigMaps;
  namespace: string | null;
}

/** `env` over `envFrom`, in the order Kubernetes resolves them. */
function variablesOf(container: KNode, ctx: ContainerContext, files: string[]): Map<string, Var> {
  const vars = new Map<string, Var>();
  for (const src of itemsOf(get(container, "envFrom"))) {
    const prefix = textOf(get(src, "prefix")) ?? "";
    const cmRef = get(src, "configMapRef");
    const secretRef = get(src, "secretRef");
    const ref = cmRef ?? secretRef;
    const name = textOf(get(ref, "name"));
    if (!ref || name === null) continue;
    const optional = textOf(get(ref, "optional")) === "true";
    const cm = cmRef ? ctx.configMaps(name, ctx.namespace) : null;
    if (!cm) {
      // What a Secret or an absent ConfigMap holds is unknown: `$(VAR)` of it is reported where it is used.
      if (cmRef && !optional)
        ctx.problems.push({
          kind: "unresolved",
          file: ref.pos.file,
          line: ref.pos.line,
          message:
            `envFrom ConfigMap ${name} of ${ctx.service} is not in the repository; the ` +
            `variables it sets are unknown to kvgate (commit it under the kubernetes globs)`,
          service: ctx.service,
        });
      continue;
    }
    if (!files.includes(cm.file)) files.push(cm.file);
    for (const [k, v] of cm.data) vars.set(prefix + k, { value: v.value, pos: v.pos });
  }
  for (const item of itemsOf(get(container, "env"))) {
    const name = textOf(get(item, "name"));
    if (name === null) continue;
    const valueNode = get(item, "value");
    const from = get(item, "valueFrom");
    if (from) {
      const cmKey = get(from, "configMapKeyRef");
      const cm = cmKey ? ctx.configMaps(textOf(get(cmKey, "name")) ?? "", ctx.namespace) : null;
      const entry = cm?.data.get(textOf(get(cmKey, "key")) ?? "");
      if (cm && entry) {
        if (!files.includes(cm.file)) files.push(cm.file);
        vars.set(name, { value: entry.value, pos: entry.pos });
      } else vars.set(name, { value: null, pos: item.pos });
      continue;
    }
    vars.set(name, { value: textOf(valueNode) ?? "", pos: valueNode?.pos ?? item.pos });
  }
  return vars;
}

/** A whole-device count as Kubernetes takes it: a non-negative integer (extended resources cannot be split). */
function deviceCount(raw: string): number | null {
  return /^\d+$/.test(raw.trim()) ? Number(raw.trim()) : null;
}

/** `resources.limits` (and requests, which must equal them) of a GPU resource. */
export function gpuAskOf(resources: KNode | undefined, service: string, problems: K8sProblem[]): GpuAsk | null {
  const limits = get(resources, "limits");
  const requests = get(resources, "requests");
  const names = new Set([...entriesOf(limits), ...entriesOf(requests)].map(([k]) => k).filter(isGpuResource));
  for (const resource of names) {
    const lim = get(limits, resource);
    const req = get(requests, resource);
    const node = lim ?? req;
    const raw = textOf(node) ?? "";
    const at = keyPosOf(lim ? limits : requests, resource) ?? (node as KNode).pos;
    const count = deviceCount(raw);
    if (count === null) {
      problems.push({
        kind: "parse",
        file: at.file,
        line: at.line,
        message:
          `${resource}: ${JSON.stringify(raw)} for ${service} is not a whole ` +
          `number of devices; the API server refuses a fraction of an extended resource ` +
          `(ask for 1, or share cards with the device plugin's time-slicing)`,
        service,
      });
      continue;
    }
    if (!lim) {
      problems.push({
        kind: "parse",
        file: at.file,
        line: at.line,
        message:
          `${resource} of ${service} is requested but has no limit; the API server ` +
          `refuses it (GPUs are set in limits: write limits.${resource}: ${count})`,
        service,
      });
      continue;
    }
    if (req && textOf(req)?.trim() !== raw.trim()) {
      problems.push({
        kind: "parse",
        file: req.pos.file,
        line: req.pos.line,
        message:
          `${resource} of ${service}: requests ${textOf(req)} differs from limits ` +
          `${raw}; the API server refuses it (set them equal, or drop the request)`,
        service,
      });
    }
    return { resource, count, raw, key: resource, file: at.file, line: at.line };
  }
  return null;
}

export function readContainer(container: KNode, ctx: ContainerContext): ContainerRead {
  const files: string[] = [];
  const vars = variablesOf(container, ctx, files);
  const lookup: VarLookup = (name) => {
    const v = vars.get(name);
    return v ? { value: v.value } : undefined;
  };
  const edits: EnvEdit[] = [];
  const image = get(container, "image");
  const imageText = textOf(image);
  if (image && imageText) edits.push({ kind: "set", key: "IMAGE", value: imageText, line: image.pos.line, file: image.pos.file });
  for (const [key, v] of vars) {
    if (!ENGINE_KEYS.test(key)) continue;
    if (v.value === null)
      ctx.problems.push({
        kind: "unresolved",
        file: v.pos.file,
        line: v.pos.line,
        message: `${key} of ${ctx.service} comes from outside the repository (a Secret or the downward API); kvgate skips it`,
        service: ctx.service,
        key,
      });
    else edits.push({ kind: "set", key, value: v.value, line: v.pos.line, file: v.pos.file });
  }
  const cmd = commandOf(container, lookup, ctx);
  if (cmd) edits.push({ kind: "flags", key: "COMMAND", value: cmd.value, line: cmd.line, file: cmd.file, wordLines: cmd.wordLines });
  const gpu = gpuAskOf(get(container, "resources"), ctx.service, ctx.problems);
  return { edits, gpu, files };
}
