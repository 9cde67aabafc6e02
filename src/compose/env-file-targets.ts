// The env_file targets a compose file names, found before the fleet is read: Compose takes any file
// name (`conf/chat.vars`, `env/chat`), not only `*.env`, and the loader reads what the listing globs
// match, so these are read in the loader's second batch (src/load/composes.ts). A light read: no
// interpolation, no merge; a file that does not parse names nothing here (the full reader reports it).
import { posix } from "node:path";
import { parse } from "yaml";
import { resolvePath } from "./context.js";

function pathsOf(node: unknown): string[] {
  const items = Array.isArray(node) ? (node as unknown[]) : [node];
  return items.flatMap((item) => {
    const written = item !== null && typeof item === "object" ? (item as Record<string, unknown>).path : item;
    return typeof written === "string" && !written.includes("$") ? [written] : [];
  });
}

/** Repository paths of the `env_file` entries of every service in `text` (the compose file at `path`). */
export function envFileTargets(path: string, text: string): string[] {
  if (!text.includes("env_file")) return [];
  let doc: unknown;
  try {
    doc = parse(text, { uniqueKeys: false, maxAliasCount: 100 });
  } catch {
    return [];
  }
  const services = doc !== null && typeof doc === "object" ? (doc as Record<string, unknown>).services : undefined;
  if (services === null || typeof services !== "object") return [];
  const out: string[] = [];
  for (const def of Object.values(services as Record<string, unknown>)) {
    if (def === null || typeof def !== "object") continue;
    for (const written of pathsOf((def as Record<string, unknown>).env_file)) {
      const r = resolvePath(posix.dirname(path), written);
      if (r.ok) out.push(r.path);
    }
  }
  return out;
}
