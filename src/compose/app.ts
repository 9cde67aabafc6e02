// A Compose application as `docker compose config` builds it: the compose file with its override
// file merged over it, every service's `extends` chain merged (same file or `file:`), and the
// services of `include`d files added. Paths stay inside the repository; cycles are refused as
// Compose refuses them.
import { posix } from "node:path";
import { loadTree, problem, projectOf, readText, resolvePath, unresolved, type Ctx, type Project } from "./context.js";
import { mergeNode } from "./merge.js";
import { schemaProblem } from "./validate.js";
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
  // With the schema check, what the schema refuses is said once, in its words (refusedBySchema).
  const schema = ctx.opts.schema !== undefined;
  if (servicesNode && servicesNode.t !== "map" && !(servicesNode.t === "str" && servicesNode.value === null)) {
    if (!schema)
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
  if (refusedBySchema(ctx, model, services)) return { isCompose, services: new Map() };
  if (include) readIncludes(ctx, include, project, services, includeStack);
  return { isCompose, services };
}

/**
 * The application checked against the Compose Specification's schema as compose checks it: after
 * interpolation, with each service's `extends` merged and the override files laid over (compose-go
 * loadYamlFile validates once those are applied). What the schema refuses deploys nothing; the
 * problem is placed at the line of the value it names, in whichever file wrote it.
 */
function refusedBySchema(ctx: Ctx, model: CMap, services: ReadonlyMap<string, ServiceDef>): boolean {
  const check = ctx.opts.schema;
  if (!check) return false;
  const written = model.entries.get("services");
  let doc: CNode = model;
  if (written?.value.t === "map") {
    const entries = new Map<string, CEntry>();
    for (const [name, e] of written.value.entries) {
      const def = services.get(name)?.def;
      // A service written as null stays null: the schema wants a mapping.
      entries.set(name, def && !(e.value.t === "str" && e.value.value === null) ? { keyPos: e.keyPos, value: def } : e);
    }
    doc = { ...model, entries: new Map(model.entries).set("services", { keyPos: written.keyPos, value: { ...written.value, entries } }) };
  }
  const refused = schemaProblem(doc, check);
  if (!refused) return false;
  problem(ctx, { kind: "parse", file: refused.file, line: refused.line, message: refused.message });
  return true;
}

function asServiceMap(n: CNode, name: string, ctx: Ctx, quiet: boolean): CMap | null {
  if (n.t === "map") return n;
  if (n.t === "str" && n.value === null) return { t: "map", entries: new Map(), pos: n.pos };
  if (!quiet)
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
  // A service of the application itself is checked by the schema; one in an extends target's file is not.
  const def = asServiceMap(entry.value, name, ctx, ctx.opts.schema !== undefined && stack.length === 0);
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
      // A file outside the repository is one the gate cannot see: what runs is unknown, so it refuses
      // (a remote resource is a notice: compose fetches it, kvgate does not).
      problem(ctx, {
        kind: resolved.remote ? "unresolved" : "parse",
        file: fileNode.pos.file,
        line: fileNode.pos.line,
        message:
          `extends of ${name}: ${resolved.why}; what ${service} sets is unknown to ` +
          `kvgate${resolved.remote ? "" : ", so it cannot size the service (keep the base in the repository)"}`,
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
        message:
          `include cycle ${[...stack.slice(stack.indexOf(first)), first].join(" → ")}: ` +
          `docker compose refuses it; remove the include that closes the loop`,
      });
      continue;
    }
    for (const f of files) if (!ctx.out.composeFiles.includes(f)) ctx.out.composeFiles.push(f);
    // A file included along two paths (a diamond) is read once: a chain of diamonds would otherwise
    // cost 2^depth reads.
    const sub = includedApp(ctx, files, includedProject(ctx, item, first, project), [...stack, first], item);
    if (!sub) continue;
    for (const [name, s] of sub.services) {
      const mine = services.get(name);
      if (mine) {
        // compose-go include.go importResource (since 2025-11, "Allow importing compose file to
        // override resource definition"): the including file's service is merged over the imported one.
        const merged = mergeNode(s.def, mine.def, ["services", name]);
        if (merged?.t === "map") services.set(name, { ...mine, def: merged });
        continue;
      }
      services.set(name, s);
    }
  }
}

/** More includes than any real project has: past it the include graph is a hostile shape. */
const MAX_INCLUDED_APPS = 500;

function includedApp(ctx: Ctx, files: string[], project: Project, stack: string[], at: CNode): App | null {
  const id = `${files.join("\u0000")}\u0000${project.id}`;
  if (ctx.apps.has(id)) return ctx.apps.get(id) ?? null;
  if (ctx.apps.size >= MAX_INCLUDED_APPS) {
    problem(ctx, {
      kind: "parse",
      file: at.pos.file,
      line: at.pos.line,
      message:
        `the includes of ${ctx.root} reach more than ${MAX_INCLUDED_APPS} ` +
        `applications (files included along many paths, each with its ` +
        `own .env); kvgate does not read further: include each file once`,
    });
    return null;
  }
  const app = readApp(ctx, files, project, stack);
  ctx.apps.set(id, app);
  return app;
}

function includedPath(ctx: Ctx, node: CNode): string | null {
  if (node.t !== "str") return null;
  if (node.unresolved) {
    unresolved(ctx, node, "include");
    return null;
  }
  if (node.value === null) return null;
  const r = resolvePath(posix.dirname(node.pos.file), node.value);
  if (!r.ok) {
    // README "Compose files": an include outside the repository is compose/parse (the services it
    // defines are unknown, so the gate cannot pass them); a remote include is a notice.
    problem(ctx, {
      kind: r.remote ? "unresolved" : "parse",
      file: node.pos.file,
      line: node.pos.line,
      message:
        `include: ${r.why}; the services it defines are unknown to ` +
        `kvgate${r.remote ? "" : ", so it cannot size them (keep the included file in the repository)"}`,
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
