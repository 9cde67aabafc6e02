// A Compose application as `docker compose config` builds it: the compose file with its override
// file merged over it, every service's `extends` chain merged (same file or `file:`), and the
// services of `include`d files added. Paths stay inside the repository; cycles are refused as
// Compose refuses them.
import { posix } from "node:path";
import { loadTree, problem, projectOf, readText, resolvePath, unresolved, type Ctx, type Project } from "./context.js";
import { mergeNode } from "./merge.js";
import { get, textOf, type CEntry, type CMap, type CNode, type Pos } from "./tree.js";

/** A service after its extends chain is merged. */
export interface ServiceDef {
  name: string;
  def: CMap;
  /** Where its key is written (the file that defines it: the compose file or an included one). */
  keyPos: Pos;
  project: Project;
}

export interface App {
  isCompose: boolean;
  services: Map<string, ServiceDef>;
}

const DEFAULT_FILES = new Set(["compose.yaml", "compose.yml", "docker-compose.yml", "docker-compose.yaml"]);
const OVERRIDE_FILES = ["compose.override.yml", "compose.override.yaml", "docker-compose.override.yml", "docker-compose.override.yaml"];

/** `docker compose up` in a folder reads compose.yaml and, when there, compose.override.yaml merged over it. */
export function overrideFileOf(ctx: Ctx, path: string): string | null {
  if (!DEFAULT_FILES.has(posix.basename(path))) return null;
  const dir = posix.dirname(path);
  for (const name of OVERRIDE_FILES) {
    const p = dir === "." ? name : `${dir}/${name}`;
    if (ctx.source(p) !== null) return p;
  }
  return null;
}

/** The root project: the compose file's folder and the `.env` beside it. */
export function rootProject(ctx: Ctx, path: string): Project {
  const dir = posix.dirname(path);
  return projectOf(ctx, dir, [posix.join(dir, ".env")]);
}

/** Reads the application of `files` (a compose file and the files merged over it); null when the first cannot be read. */
export function readApp(ctx: Ctx, files: string[], project: Project, includeStack: string[]): App | null {
  let model: CNode | undefined;
  for (const [i, f] of files.entries()) {
    const tree = loadTree(ctx, f, project);
    if (tree === null) {
      if (i === 0) return null;
      continue;
    }
    model = model === undefined ? tree : mergeNode(model, tree, []);
  }
  if (model?.t !== "map") return { isCompose: false, services: new Map() };
  const servicesNode = model.entries.get("services")?.value;
  const include = get(model, "include");
  const isCompose = servicesNode !== undefined || include !== undefined;
  const services = new Map<string, ServiceDef>();
  if (!isCompose) return { isCompose, services };
  if (servicesNode && servicesNode.t !== "map" && !(servicesNode.t === "str" && servicesNode.value === null)) {
    problem(ctx, {
      kind: "parse",
      file: servicesNode.pos.file,
      line: servicesNode.pos.line,
      message: "services must be a mapping of service names to definitions; docker compose refuses the file",
    });
  } else if (servicesNode?.t === "map") {
    const memo = new Map<string, CMap>();
    for (const [name, entry] of servicesNode.entries) {
      if (entry.value.t === "reset") continue;
      const def = resolveService(ctx, name, servicesNode.entries, files[0] as string, project, [], memo);
      if (def) services.set(name, { name, def, keyPos: entry.keyPos, project });
    }
  }
  if (include) readIncludes(ctx, include, project, services, includeStack);
  return { isCompose, services };
}

function asServiceMap(n: CNode, name: string, ctx: Ctx): CMap | null {
  if (n.t === "map") return n;
  if (n.t === "str" && n.value === null) return { t: "map", entries: new Map(), pos: n.pos };
  problem(ctx, {
    kind: "parse",
    file: n.pos.file,
    line: n.pos.line,
    message: `service ${name} must be a mapping; docker compose refuses the file`,
  });
  return null;
}

function withoutExtends(def: CMap): CMap {
  const entries = new Map(def.entries);
  entries.delete("extends");
  return { ...def, entries };
}

/** A service with its `extends` chain merged (compose spec, services `extends`). */
function resolveService(
  ctx: Ctx,
  name: string,
  services: ReadonlyMap<string, CEntry>,
  file: string,
  project: Project,
  stack: string[],
  memo: Map<string, CMap>,
): CMap | null {
  const id = `${file}#${name}`;
  const cached = memo.get(id);
  if (cached) return cached;
  const entry = services.get(name);
  if (!entry) return null;
  const def = asServiceMap(entry.value, name, ctx);
  if (!def) return null;
  const ext = get(def, "extends");
  if (ext === undefined) {
    memo.set(id, def);
    return def;
  }
  const own = withoutExtends(def);
  const target = extendsTarget(ctx, name, ext, file, services, project);
  if (!target) return own;
  const targetId = `${target.file}#${target.service}`;
  const chain = [...stack, id];
  if (chain.includes(targetId)) {
    const loop = [...chain.slice(chain.indexOf(targetId)), targetId].map(label).join(" → ");
    problem(ctx, {
      kind: "parse",
      file: ext.pos.file,
      line: ext.pos.line,
      message: `extends cycle ${loop}: docker compose refuses it; remove the extends that closes the loop`,
      service: name,
    });
    return own;
  }
  const base = resolveService(ctx, target.service, target.services, target.file, project, chain, memo);
  if (!base) return own;
  const merged = mergeNode(base, own, ["services", name]);
  const out: CMap = merged?.t === "map" ? merged : own;
  memo.set(id, out);
  return out;
}

function label(id: string): string {
  const [file, service] = id.split("#");
  return `${service} (${file})`;
}

/** The service an `extends` names: `extends: base`, or `{ service, file }` with the file in the repository. */
function extendsTarget(
  ctx: Ctx,
  name: string,
  ext: CNode,
  file: string,
  here: ReadonlyMap<string, CEntry>,
  project: Project,
): { service: string; file: string; services: ReadonlyMap<string, CEntry> } | null {
  const serviceNode = ext.t === "map" ? get(ext, "service") : ext;
  const fileNode = ext.t === "map" ? get(ext, "file") : undefined;
  for (const n of [serviceNode, fileNode]) {
    if (n?.t === "str" && n.unresolved) {
      unresolved(ctx, n, `extends of ${name}`, name);
      return null;
    }
  }
  const service = textOf(serviceNode);
  if (service === null) {
    problem(ctx, {
      kind: "parse",
      file: ext.pos.file,
      line: ext.pos.line,
      message: `extends of ${name} names no service; docker compose refuses it (write extends: { service: base })`,
      service: name,
    });
    return null;
  }
  let target = file;
  let services: ReadonlyMap<string, CEntry> | undefined = here;
  const written = textOf(fileNode);
  if (fileNode && written !== null) {
    const resolved = resolvePath(posix.dirname(fileNode.pos.file), written);
    if (!resolved.ok) {
      problem(ctx, {
        kind: "unresolved",
        file: fileNode.pos.file,
        line: fileNode.pos.line,
        message: `extends of ${name}: ${resolved.why}; what ${service} sets is unknown to kvgate`,
        service: name,
      });
      return null;
    }
    target = resolved.path;
    if (ctx.source(target) === null) {
      problem(ctx, {
        kind: "parse",
        file: fileNode.pos.file,
        line: fileNode.pos.line,
        message: `extends of ${name}: ${target} is not in the repository; docker compose cannot load the service`,
        service: name,
      });
      return null;
    }
    if (!ctx.out.composeFiles.includes(target)) ctx.out.composeFiles.push(target);
    // The extended file is interpolated with the extending project's variables.
    const tree = loadTree(ctx, target, project);
    if (tree === null) return null;
    const s = get(tree, "services");
    services = s?.t === "map" ? s.entries : undefined;
  }
  if (!services?.has(service)) {
    const where = fileNode ? fileNode.pos : ext.pos;
    problem(ctx, {
      kind: "parse",
      file: where.file,
      line: where.line,
      message: `extends of ${name}: service ${service} is not defined in ${target}; docker compose refuses it`,
      service: name,
    });
    return null;
  }
  return { service, file: target, services };
}

/** `include:` entries: a path, a list of paths merged, or `{ path, env_file, project_directory }`. */
/** Included applications already read, per read, by project and files. */
const includedApps = new WeakMap<Ctx, Map<string, App | null>>();

/**
 * An included application, read once per read: a file included twice (a diamond, `include: [a, a]`)
 * is the same application, and reading it again per path through the diamonds was exponential in
 * their depth (16 levels: 131,000 reads; a pull request could stop CI with a few more).
 */
function includedApp(ctx: Ctx, files: string[], project: Project, stack: string[]): App | null {
  let apps = includedApps.get(ctx);
  if (!apps) includedApps.set(ctx, (apps = new Map<string, App | null>()));
  const key = `${project.id}\0${files.join("\0")}`;
  if (!apps.has(key)) apps.set(key, readApp(ctx, files, project, stack));
  return apps.get(key) ?? null;
}

function readIncludes(ctx: Ctx, include: CNode, project: Project, services: Map<string, ServiceDef>, stack: string[]): void {
  const items = include.t === "seq" ? include.items : [include];
  for (const item of items) {
    const pathNode = item.t === "map" ? get(item, "path") : item;
    const paths = pathNode?.t === "seq" ? pathNode.items : pathNode ? [pathNode] : [];
    const files: string[] = [];
    let ok = paths.length > 0;
    for (const p of paths) {
      const f = includedPath(ctx, p);
      if (f === null) ok = false;
      else files.push(f);
    }
    if (!ok || files.length === 0) continue;
    const first = files[0] as string;
    if (stack.includes(first)) {
      const at = paths[0] as CNode;
      problem(ctx, {
        kind: "parse",
        file: at.pos.file,
        line: at.pos.line,
        message: `include cycle ${[...stack.slice(stack.indexOf(first)), first].join(" → ")}: docker compose refuses it; remove the include that closes the loop`,
      });
      continue;
    }
    for (const f of files) if (!ctx.out.composeFiles.includes(f)) ctx.out.composeFiles.push(f);
    const sub = includedApp(ctx, files, includedProject(ctx, item, first, project), [...stack, first]);
    if (!sub) continue;
    let twice = false;
    for (const [name, s] of sub.services) {
      const mine = services.get(name);
      if (mine === s) {
        // The same file reached twice (`include: [a, a]`, or two includes that both include it): said once per include.
        if (!twice) {
          twice = true;
          problem(ctx, {
            kind: "unresolved",
            file: at0(paths).pos.file,
            line: at0(paths).pos.line,
            message: `${first} is included more than once (here and through another include), so its services are defined twice; include it from one place`,
          });
        }
        continue;
      }
      if (mine) {
        problem(ctx, {
          kind: "unresolved",
          file: s.keyPos.file,
          line: s.keyPos.line,
          message: `service ${name} of ${s.keyPos.file} is also defined in ${mine.keyPos.file}:${mine.keyPos.line}; Compose does not merge included services, kvgate reads the one in ${mine.keyPos.file} (rename one)`,
          service: name,
        });
        continue;
      }
      services.set(name, s);
    }
  }
}

const at0 = (paths: CNode[]): CNode => paths[0] as CNode;

function includedPath(ctx: Ctx, node: CNode): string | null {
  if (node.t !== "str") return null;
  if (node.unresolved) {
    unresolved(ctx, node, "include");
    return null;
  }
  if (node.value === null) return null;
  const r = resolvePath(posix.dirname(node.pos.file), node.value);
  if (!r.ok) {
    problem(ctx, {
      kind: "unresolved",
      file: node.pos.file,
      line: node.pos.line,
      message: `include: ${r.why}; the services it defines are unknown to kvgate`,
    });
    return null;
  }
  if (ctx.source(r.path) === null) {
    problem(ctx, {
      kind: "parse",
      file: node.pos.file,
      line: node.pos.line,
      message: `include: ${r.path} is not in the repository; docker compose cannot load the application`,
    });
    return null;
  }
  return r.path;
}

/** An included file is its own project: its folder (or project_directory) and the `.env` there (or
 *  the include's env_file), under the including project's variables (compose spec "Include"). */
function includedProject(ctx: Ctx, item: CNode, first: string, parent: Project): Project {
  const base = posix.dirname(item.pos.file);
  const dirNode = get(item, "project_directory");
  const dirText = textOf(dirNode);
  const dirResolved = dirText === null ? null : resolvePath(base, dirText);
  const dir = dirResolved?.ok ? dirResolved.path : posix.dirname(first);
  const envNode = get(item, "env_file");
  const written = envNode?.t === "seq" ? envNode.items : envNode ? [envNode] : [];
  const envFiles: string[] = [];
  for (const n of written) {
    const t = textOf(n);
    const r = t === null ? null : resolvePath(base, t);
    if (r?.ok) {
      if (readText(ctx, r.path) === null)
        problem(ctx, {
          kind: "unresolved",
          file: n.pos.file,
          line: n.pos.line,
          message: `include env_file ${r.path} is not in the repository; the included file's variables are unknown to kvgate`,
        });
      else envFiles.push(r.path);
    } else if (r) problem(ctx, { kind: "unresolved", file: n.pos.file, line: n.pos.line, message: `include env_file: ${r.why}` });
  }
  return projectOf(ctx, dir, envFiles.length > 0 ? envFiles : [posix.join(dir, ".env")], parent);
}
