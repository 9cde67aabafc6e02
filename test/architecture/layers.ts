// The layers of src/, bottom up: a file may import its own layer and the layers below, never above.
// The README's "How it works" states the same list; test/architecture/layers.test.ts enforces it.
const LAYERS: readonly { name: string; folders: readonly string[] }[] = [
  { name: "units and errors", folders: ["units", "errors.ts", "version.ts"] },
  { name: "rules pack and config", folders: ["rules", "config"] },
  { name: "git", folders: ["git"] },
  { name: "parsers", folders: ["parse", "playbook", "compose"] },
  { name: "model", folders: ["model"] },
  { name: "fleet loader", folders: ["load"] },
  { name: "domain math", folders: ["kv", "radiance", "secrets", "plan", "fix"] },
  { name: "checks", folders: ["checks"] },
  { name: "engine", folders: ["engine"] },
  { name: "views and reporters", folders: ["report", "explain", "usage", "observe"] },
  { name: "commands", folders: ["cli", "action", "init"] },
];

/** The layer index of a path under src/ (`kv/seat.ts` → 6), or undefined for a folder no layer names. */
export function layerOf(srcPath: string): number | undefined {
  const top = srcPath.split("/")[0] ?? "";
  const i = LAYERS.findIndex((l) => l.folders.includes(top));
  return i < 0 ? undefined : i;
}

/** The imports that run up the layers, as `file imports spec (layer → layer)` lines. */
export function upwardImports(list: readonly [string, string, string][]): string[] {
  const bad: string[] = [];
  for (const [from, spec, to] of list) {
    const a = layerOf(from);
    const b = layerOf(to);
    if (a === undefined || b === undefined || b <= a) continue;
    bad.push(`src/${from} imports ${spec}: ${LAYERS[a]?.name} may not import ${LAYERS[b]?.name}`);
  }
  return bad;
}
