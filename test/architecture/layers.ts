// The layers of src/, bottom up: a file may import its own layer and the layers below, never above.
// The README's "How it works" (and CONTRIBUTING.md) state the same list; test/architecture/layers.test.ts
// enforces it, with what each layer may not do besides.
const LAYERS: readonly { name: string; folders: readonly string[] }[] = [
  { name: "units and errors", folders: ["units", "errors.ts", "version.ts"] },
  { name: "config schemas", folders: ["config"] },
  { name: "rules pack", folders: ["rules"] },
  { name: "git", folders: ["git"] },
  { name: "parsers", folders: ["parse", "playbook", "compose", "systemd", "kubernetes"] },
  { name: "model", folders: ["model"] },
  { name: "fleet loader", folders: ["load"] },
  { name: "domain math", folders: ["kv", "radiance", "secrets", "plan", "fix"] },
  { name: "checks", folders: ["checks"] },
  { name: "engine", folders: ["engine"] },
  { name: "views and reporters", folders: ["report", "explain"] },
  // Self-contained features: they read their own inputs (logs, metrics) and the engine's view, and
  // nothing but the commands imports them.
  { name: "features", folders: ["usage", "observe"] },
  { name: "commands", folders: ["cli", "action", "init"] },
];

/** Folders of a layer that only the commands may import. */
const FEATURES: readonly string[] = ["usage", "observe"];

/** The layer index of a path under src/ (`kv/seat.ts` → 7), or undefined for a folder no layer names. */
export function layerOf(srcPath: string): number | undefined {
  const top = srcPath.split("/")[0] ?? "";
  const i = LAYERS.findIndex((l) => l.folders.includes(top));
  return i < 0 ? undefined : i;
}

const folderOf = (srcPath: string): string => srcPath.split("/")[0] ?? "";

/** The imports that run up the layers, as `file imports spec (layer → layer)` lines. */
export function upwardImports(list: readonly [string, string, string][]): string[] {
  const bad: string[] = [];
  for (const [from, spec, to] of list) {
    const a = layerOf(from);
    const b = layerOf(to);
    if (a === undefined || b === undefined) continue;
    if (b > a) bad.push(`src/${from} imports ${spec}: ${LAYERS[a]?.name} may not import ${LAYERS[b]?.name}`);
    else if (FEATURES.includes(folderOf(to)) && folderOf(to) !== folderOf(from) && LAYERS[a]?.name !== "commands")
      bad.push(`src/${from} imports ${spec}: ${folderOf(to)}/ is a feature folder, which only the commands import`);
  }
  return bad;
}

/** Node modules and packages that reach the filesystem, other processes or the network. */
const IO_MODULES = [
  "fs",
  "fs/promises",
  "child_process",
  "net",
  "http",
  "https",
  "http2",
  "dns",
  "tls",
  "dgram",
  "worker_threads",
  "pg",
  "simple-git",
];
/** Below the engine, only these folders do I/O: git/ (the one door to git) and load/ (the one door to files). */
const IO_FOLDERS = ["git", "load"];

/** The bare imports (`node:fs`, `pg`) of files below the engine that reach I/O outside git/ and load/. */
export function ioBelowEngine(list: readonly [string, string][]): string[] {
  const engine = LAYERS.findIndex((l) => l.folders.includes("engine"));
  const bad: string[] = [];
  for (const [from, spec] of list) {
    const layer = layerOf(from);
    if (layer === undefined || layer >= engine || IO_FOLDERS.includes(folderOf(from))) continue;
    if (IO_MODULES.includes(spec.replace(/^node:/, "")))
      bad.push(`src/${from} imports ${spec}: below the engine only git/ and load/ do I/O`);
  }
  return bad;
}

/** Folders that import each other, directly or round a longer circle: each circle once, as `a → b → a`. */
export function folderCircles(list: readonly [string, string, string][]): string[] {
  const edges = new Map<string, Set<string>>();
  for (const [from, , to] of list) {
    const a = folderOf(from);
    const b = folderOf(to);
    if (a === b || !a.length || !b.length || a.endsWith(".ts") || b.endsWith(".ts")) continue;
    (edges.get(a) ?? edges.set(a, new Set()).get(a))?.add(b);
  }
  // Tarjan's strongly connected components: a component of more than one folder is a circle.
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const on = new Set<string>();
  const out: string[] = [];
  const visit = (v: string): void => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    on.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) ?? 0, low.get(w) ?? 0));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v) ?? 0, idx.get(w) ?? 0));
    }
    if (low.get(v) !== idx.get(v)) return;
    const scc: string[] = [];
    let w: string | undefined;
    do {
      w = stack.pop();
      if (w === undefined) break;
      on.delete(w);
      scc.push(w);
    } while (w !== v);
    if (scc.length > 1) out.push(`${scc.sort().join(" ↔ ")}: these folders import each other`);
  };
  for (const v of [...edges.keys()].sort()) if (!idx.has(v)) visit(v);
  return out;
}
