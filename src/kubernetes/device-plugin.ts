// The NVIDIA device plugin's configs in the repository (github:NVIDIA/k8s-device-plugin, "Shared
// Access to GPUs"): `sharing.timeSlicing.resources[]` or `sharing.mps.resources[]` with `replicas`
// makes each card of that resource N pods' (advertised under its own name, or `<name>.shared` with
// `renameByDefault`, or the resource's `rename`). Found in a plain config file, in a ConfigMap's data
// (each key one named config, as the plugin's `config.map` and the GPU operator's
// `devicePlugin.config` ConfigMap hold them), in the plugin chart's values (`config.map`,
// `config.default`), and the default named by a GPU operator ClusterPolicy or its values
// (`devicePlugin.config.default`).
import type { DevicePluginConfigs, K8sProblem, SharingConfig } from "./records.js";
import { entriesOf, get, getIn, itemsOf, textOf, type KNode } from "./tree.js";
import { parseYamlDocs } from "./yaml.js";

function sharingOf(
  config: KNode | undefined,
  name: string,
  at: { file: string; line: number },
  lineOf: (n: KNode) => number,
): SharingConfig[] {
  const out: SharingConfig[] = [];
  const sharing = get(config, "sharing");
  for (const [key, kind] of [
    ["timeSlicing", "time-slicing"],
    ["mps", "mps"],
  ] as const) {
    const block = get(sharing, key);
    const rename = textOf(get(block, "renameByDefault")) === "true";
    for (const r of itemsOf(get(block, "resources"))) {
      const res = textOf(get(r, "name"));
      const replicas = Number(textOf(get(r, "replicas")) ?? "");
      if (res === null || !Number.isInteger(replicas) || replicas < 1) continue;
      const advertised = textOf(get(r, "rename")) ?? (rename ? `${res}.shared` : res);
      out.push({ name, kind, resource: advertised, replicas, file: at.file, line: lineOf(r) });
    }
  }
  return out;
}

/** A device plugin config: `sharing`, or `version: v1` with `flags`; a config map's entry needs only `version: v1` (a config that shares nothing). */
function looksLikeConfig(n: KNode | undefined, entry = false): boolean {
  const v1 = textOf(get(n, "version")) === "v1";
  return get(n, "sharing") !== undefined || (v1 && (entry || get(n, "flags") !== undefined));
}

/** A config written as text (a ConfigMap value, the chart's config.map entry): parsed, its lines counted from the value's. */
function embedded(value: KNode, name: string, out: DevicePluginConfigs, problems: K8sProblem[]): void {
  const text = textOf(value);
  if (text === null) {
    if (looksLikeConfig(value, true)) add(value, name, out, (n) => n.pos.line);
    return;
  }
  if (!/\bsharing\s*:|\bversion\s*:/.test(text)) return;
  const first = value.pos.line + (value.t === "str" && value.block ? 1 : 0);
  const parsed = parseYamlDocs(value.pos.file, text);
  for (const p of parsed.problems)
    problems.push({
      kind: "parse",
      file: value.pos.file,
      line: first + p.line - 1,
      message: `device plugin config ${name}: ${p.message}; the plugin refuses it`,
    });
  const doc = parsed.docs[0]?.tree;
  if (doc && looksLikeConfig(doc, true)) add(doc, name, out, (n) => first + n.pos.line - 1, value.pos.line);
}

function add(config: KNode, name: string, out: DevicePluginConfigs, lineOf: (n: KNode) => number, at = config.pos.line): void {
  if (!out.names.includes(name)) out.names.push(name);
  out.configs.push(...sharingOf(config, name, { file: config.pos.file, line: at }, lineOf));
}

/** Adds what one YAML document says about the device plugin's configs. */
export function readDevicePlugin(doc: KNode, kind: string | null, out: DevicePluginConfigs, problems: K8sProblem[]): boolean {
  const before = out.names.length + (out.default === null ? 0 : 1);
  if (kind === "ConfigMap") {
    for (const [key, e] of entriesOf(get(doc, "data"))) embedded(e.value, key, out, problems);
  } else if (kind === "ClusterPolicy") {
    const d = textOf(getIn(doc, "spec", "devicePlugin", "config", "default"));
    if (d) out.default = d;
  } else if (kind === null) {
    if (looksLikeConfig(doc)) add(doc, "default", out, (n) => n.pos.line);
    // The device plugin chart's values: config.map.<name> and config.default.
    const cfg = get(doc, "config");
    for (const [key, e] of entriesOf(get(cfg, "map"))) embedded(e.value, key, out, problems);
    const d = textOf(get(cfg, "default")) ?? textOf(getIn(doc, "devicePlugin", "config", "default"));
    if (d) out.default = d;
  }
  return out.names.length + (out.default === null ? 0 : 1) > before;
}
