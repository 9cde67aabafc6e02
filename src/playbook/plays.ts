// The playbook reader: plays, their task lists, blocks, includes, roles and vars, walked over the
// YAML AST so that every setting keeps its line. It never throws and never touches the disk: files
// come through a callback over what the caller already loaded, and what it cannot read it reports.
// A play is walked once per inventory host it targets (docs/playbooks.md#hosts), with that host's
// variables in Ansible's order of precedence (./scope.ts).
import type { PlaybookDeploy, PlaybookRead, ReadFile, ReadOptions } from "./records.js";
import { isMapping, isSequence, itemsOf, lineOf, pairsOf, scalarText, type YamlFile } from "./nodes.js";
import { load, locate, problem, type PlaybookWalk } from "./walk.js";
import { render, renderValue, type Scope, type Vars } from "./template.js";
import { moduleHandler, moduleNameOf } from "./modules.js";
import { layoutOf } from "./layout.js";
import { emptyInventory, readInventory } from "./inventory.js";
import { varsOf, located } from "./vars.js";
import { hostLayers, magicVars, playHosts, type PlayHost } from "./scope.js";
import { walkRole, walkRoleRef } from "./roles.js";

const INCLUDE_TASKS = new Set(["import_tasks", "include_tasks", "include"]);
const INCLUDE_ROLE = new Set(["import_role", "include_role"]);
const IMPORT_PLAYBOOK = new Set(["import_playbook", "include_playbook"]);
const TASK_SECTIONS = ["pre_tasks", "roles", "tasks", "post_tasks", "handlers"] as const;

/** What a task list is walked with: its variables, the files on the way to it, and its role. */
export interface WalkContext {
  scope: Scope;
  stack: string[];
  roleDir?: string | undefined;
}

export function readPlaybook(path: string, files: ReadonlyMap<string, string> | ReadFile, opts: ReadOptions = {}): PlaybookRead {
  const read: ReadFile = typeof files === "function" ? files : (p) => files.get(p) ?? null;
  const listing = opts.paths ?? (typeof files === "function" ? null : [...files.keys()]);
  const out: PlaybookRead = { path, kind: "playbook", isPlaybook: false, deploys: [], problems: [], files: [] };
  const r: PlaybookWalk = {
    root: path,
    read,
    opts,
    out,
    byService: new Map(),
    cache: new Map(),
    host: null,
    listing,
    layout: { cfg: null, inventories: [], rolesPath: [], varsDirs: [] },
    inventory: emptyInventory(),
  };
  const file = load(r, path);
  if (!file) return out;
  if (file.errors.length > 0) {
    for (const e of file.errors)
      out.problems.push({ kind: "parse", file: path, line: e.line, message: `${path} is not valid YAML: ${e.message}` });
    return out;
  }
  if (!isPlayList(file, file.doc.contents)) return out;
  out.isPlaybook = true;
  r.layout = layoutOf(path, listing, read);
  r.inventory = readInventory(r.layout.inventories.map((p) => ({ path: p, text: read(p) ?? "" })));
  for (const f of [...(r.layout.cfg ? [r.layout.cfg] : []), ...r.inventory.files]) if (!out.files.includes(f)) out.files.push(f);
  for (const p of r.inventory.problems) problem(r, p);
  walkPlays(r, file, [path]);
  out.deploys = [...r.byService.values()];
  // A unit's EnvironmentFile= that the same playbook renders (a role's env template) is read, not missing.
  out.problems = out.problems.filter(
    (p) => !(p.key === "EnvironmentFile" && p.service !== undefined && r.byService.get(p.service)?.edits.some((e) => e.kind === "reset")),
  );
  return out;
}

/** A list holding at least one play (`hosts:`) or `import_playbook:`. A vars file or a tasks file is not. */
function isPlayList(file: YamlFile, node: unknown): boolean {
  return itemsOf(file, node).some((item) => pairsOf(file, item).some(([k]) => k === "hosts" || IMPORT_PLAYBOOK.has(shortName(k))));
}

function shortName(k: string): string {
  return k.replace(/^ansible\.(builtin|legacy)\./, "");
}

function walkPlays(r: PlaybookWalk, file: YamlFile, stack: string[]): void {
  for (const play of itemsOf(file, file.doc.contents)) {
    const pairs = pairsOf(file, play);
    const imported = pairs.find(([k]) => IMPORT_PLAYBOOK.has(shortName(k)));
    if (imported) {
      const target = includeTarget(r, file, imported[1], [], "import_playbook");
      if (target) follow(r, file, target, lineOf(file, imported[1]), stack, true, (f, st) => walkPlays(r, f, st));
      continue;
    }
    if (!pairs.some(([k]) => k === "hosts")) continue;
    walkPlay(r, file, new Map(pairs.map(([k, v]) => [k, v])), stack);
  }
}

function walkPlay(r: PlaybookWalk, file: YamlFile, play: Map<string, unknown>, stack: string[]): void {
  const playVars = varsOf(file, play.get("vars"));
  const passes: { host: PlayHost | null; deploys: Map<string, PlaybookDeploy>; problems: [number, number] }[] = [];
  const before = r.byService;
  for (const host of playHosts(r, file, play.get("hosts"))) {
    r.host = host;
    r.byService = new Map();
    const from = r.out.problems.length;
    const base: Scope = [playVars, ...hostLayers(r, host?.name ?? null), magicVars(r, host?.name ?? null)];
    const layers: Scope = [...varsFiles(r, file, play.get("vars_files"), base), ...base];
    for (const section of TASK_SECTIONS) {
      const node = play.get(section);
      if (node === undefined) continue;
      if (section === "roles") for (const role of itemsOf(file, node)) walkRoleRef(r, file, role, { scope: layers, stack });
      else walkTasks(r, file, node, { scope: layers, stack });
    }
    passes.push({ host, deploys: r.byService, problems: [from, r.out.problems.length] });
  }
  r.host = null;
  r.byService = before;
  mergePasses(r, passes);
}

/**
 * The deploys of each host's pass, into the playbook's. A seat no env file defines that two hosts both
 * deploy (a role applied to a group) is a seat on each: `<name>@<host>`. A service the repository has an
 * env file for is one seat: the first host's pass deploys it.
 */
function mergePasses(
  r: PlaybookWalk,
  passes: { host: PlaybookWalk["host"]; deploys: Map<string, PlaybookDeploy>; problems: [number, number] }[],
): void {
  const hostsOf = new Map<string, number>();
  for (const p of passes) for (const s of p.deploys.keys()) hostsOf.set(s, (hostsOf.get(s) ?? 0) + 1);
  const taken = new Set<string>();
  for (const p of passes) {
    for (const [service, d] of p.deploys) {
      const split = (hostsOf.get(service) ?? 0) > 1 && p.host !== null && !r.opts.services?.has(service);
      if (!split && taken.has(service)) continue;
      taken.add(service);
      const name = split && p.host ? `${service}@${p.host.name}` : service;
      if (name !== service) {
        for (let i = p.problems[0]; i < p.problems[1]; i++) {
          const q = r.out.problems[i];
          if (q?.service === service) r.out.problems[i] = { ...q, service: name };
        }
      }
      const deploy = { ...d, service: name, envFile: name === service ? d.envFile : `scripts/${name}.env` };
      const prev = r.byService.get(name);
      if (prev) prev.edits.push(...deploy.edits);
      else r.byService.set(name, deploy);
    }
  }
}

/** vars_files, later files over earlier ones; each path may itself use play vars. */
function varsFiles(r: PlaybookWalk, file: YamlFile, node: unknown, scope: Scope): Vars[] {
  const layers: Vars[] = [];
  for (const entry of itemsOf(file, node)) {
    // A nested list is Ansible's "first one found".
    const choices = isSequence(file, entry) ? itemsOf(file, entry) : [entry];
    let found = false;
    for (const choice of choices) {
      const raw = scalarText(file, choice);
      if (raw === null) continue;
      const rendered = render(raw, scope);
      if (!rendered.ok) {
        problem(r, {
          kind: "unresolved",
          file: file.path,
          line: lineOf(file, choice),
          message: `vars_files entry ${raw}: ${rendered.reason}; its variables are not read`,
        });
        found = true;
        break;
      }
      const path = locate(r, file.path, String(rendered.value));
      const vars = path ? load(r, path) : null;
      if (!vars) continue;
      layers.unshift(varsOf(vars, vars.doc.contents));
      found = true;
      break;
    }
    if (!found) {
      problem(r, {
        kind: "unresolved",
        file: file.path,
        line: lineOf(file, entry),
        message: `vars_files: ${scalarText(file, choices[0]) ?? "the entry"} is not in the repository; the variables it defines are unknown to kvgate`,
      });
    }
  }
  return layers;
}

/** The included file's path from `import_tasks: x.yml` or `include_tasks: { file: x.yml }`. */
function includeTarget(r: PlaybookWalk, file: YamlFile, node: unknown, scope: Scope, what: string): string | null {
  const raw = isMapping(file, node) ? scalarText(file, pairsOf(file, node).find(([k]) => k === "file")?.[1]) : scalarText(file, node);
  const line = lineOf(file, node);
  if (raw === null) return null;
  const rendered = render(raw, scope);
  if (!rendered.ok) {
    problem(r, {
      kind: "unresolved",
      file: file.path,
      line,
      message: `${what} ${raw}: ${rendered.reason}; the included tasks are not read`,
    });
    return null;
  }
  const target = locate(r, file.path, String(rendered.value));
  if (!target) {
    problem(r, {
      kind: "unresolved",
      file: file.path,
      line,
      message: `${what} ${String(rendered.value)} is not in the repository; the included tasks are not read`,
    });
  }
  return target;
}

/** Enters an included file once per chain; a file (or role) that includes itself is reported, not followed. */
export function follow(
  r: PlaybookWalk,
  file: YamlFile,
  target: string,
  line: number,
  stack: string[],
  isStatic: boolean,
  walk: (f: YamlFile, stack: string[]) => void,
): void {
  if (cycle(r, file, target, line, stack, isStatic)) return;
  const f = load(r, target);
  if (!f) return;
  if (f.errors.length > 0) {
    for (const e of f.errors)
      problem(r, { kind: "parse", file: target, line: e.line, message: `${target} is not valid YAML: ${e.message}` });
    return;
  }
  walk(f, [...stack, target]);
}

/** True (and reported) when `target` is already on the way here: an import cycle is an error, an include cycle a notice. */
export function cycle(r: PlaybookWalk, file: YamlFile, target: string, line: number, stack: readonly string[], isStatic: boolean): boolean {
  if (!stack.includes(target)) return false;
  const chain = [...stack.slice(stack.indexOf(target)), target].join(" → ");
  problem(r, {
    kind: isStatic ? "parse" : "unresolved",
    file: file.path,
    line,
    message: isStatic
      ? `import cycle ${chain}: Ansible refuses to load it; remove the import that closes the loop`
      : `include cycle ${chain}: kvgate reads the file once (a \`when:\` may stop the loop at run time)`,
  });
  return true;
}

export function walkTasks(r: PlaybookWalk, file: YamlFile, node: unknown, ctx: WalkContext): void {
  for (const task of itemsOf(file, node)) {
    const pairs = pairsOf(file, task);
    if (pairs.length === 0) continue;
    const get = (k: string): unknown => pairs.find(([key]) => key === k)?.[1];
    const here: WalkContext = { ...ctx, scope: [varsOf(file, get("vars")), ...ctx.scope] };
    if (get("block") !== undefined) {
      // `rescue` runs only when the block fails (a rollback): it is not part of what the playbook deploys.
      for (const part of ["block", "always"]) if (get(part) !== undefined) walkTasks(r, file, get(part), here);
      continue;
    }
    const include = pairs.find(([k]) => INCLUDE_TASKS.has(shortName(k)));
    if (include) {
      const isStatic = shortName(include[0]) === "import_tasks";
      for (const pass of loopPasses(r, file, get, here.scope, true)) {
        const target = includeTarget(r, file, include[1], pass.scope, shortName(include[0]));
        if (target)
          follow(r, file, target, lineOf(file, include[1]), ctx.stack, isStatic, (f, st) =>
            walkTasks(r, f, f.doc.contents, { ...here, scope: pass.scope, stack: st }),
          );
      }
      continue;
    }
    const role = pairs.find(([k]) => INCLUDE_ROLE.has(shortName(k)));
    if (role) {
      const args = new Map(pairsOf(file, role[1]).map(([k, v]) => [k, v]));
      const rawName = scalarText(file, args.get("name") ?? args.get("role"));
      if (rawName === null) continue;
      for (const pass of loopPasses(r, file, get, here.scope, true)) {
        const name = render(rawName, pass.scope);
        if (!name.ok) {
          problem(r, {
            kind: "unresolved",
            file: file.path,
            line: lineOf(file, role[1]),
            message: `${role[0]} ${rawName}: ${name.reason}; its tasks are not read`,
          });
          continue;
        }
        const from = (k: string): string | undefined => scalarText(file, args.get(k)) ?? undefined;
        walkRole(
          r,
          file,
          {
            name: String(name.value),
            line: lineOf(file, role[1]),
            params: {},
            isStatic: shortName(role[0]) === "import_role",
            tasksFrom: from("tasks_from"),
            varsFrom: from("vars_from"),
            defaultsFrom: from("defaults_from"),
            handlersFrom: from("handlers_from"),
          },
          { scope: pass.scope, stack: ctx.stack },
        );
      }
      continue;
    }
    for (const [key, value, keyNode] of pairs) {
      const module = moduleNameOf(key);
      const handler = module ? moduleHandler(module) : undefined;
      if (!module || !handler) continue;
      const mayDeploy =
        module === "template" ||
        module === "copy" ||
        /\.(env|service)\b(?!\.)/.test(JSON.stringify(located(file, value) ?? "") + JSON.stringify(located(file, get("args")) ?? ""));
      for (const pass of loopPasses(r, file, get, here.scope, mayDeploy))
        handler(r, {
          module,
          node: value,
          line: lineOf(file, keyNode),
          args: get("args"),
          file,
          scope: pass.scope,
          itemLine: pass.itemLine,
          item: pass.item,
          roleDir: ctx.roleDir,
        });
      break;
    }
  }
}

interface Pass {
  scope: Scope;
  /** Line of the loop item, when looping over a literal list. */
  itemLine: number | null;
  item?: unknown;
}

/**
 * `loop: "{{ seats }}"` whose list holds a value kvgate cannot read (`max_model_len: "{{ lookup(...) }}"`
 * on one seat): Ansible templates each item's values only when the task uses them, so the loop still
 * runs. Each item is rendered on its own and kept as written where it does not render; the value that
 * fails then fails where the template uses it (that setting skipped, its seat unsized), not the loop.
 */
function lazyItems(raw: string | null, scope: Scope): unknown[] | null {
  const name = raw === null ? null : (/^\s*\{\{\s*([A-Za-z_]\w*)\s*\}\}\s*$/.exec(raw)?.[1] ?? null);
  const layer = name === null ? undefined : scope.find((l) => Object.prototype.hasOwnProperty.call(l, name));
  const list = layer === undefined || name === null ? undefined : layer[name];
  if (!Array.isArray(list)) return null;
  return list.map((item: unknown) => {
    const r = renderValue(item, scope);
    return r.ok ? r.value : item;
  });
}

/** One pass per loop item (`loop`/`with_items`/`with_list`/`with_dict`), each with `item` (or loop_var) bound. */
function loopPasses(r: PlaybookWalk, file: YamlFile, get: (k: string) => unknown, scope: Scope, mayDeploy: boolean): Pass[] {
  const dict = get("with_dict");
  const loopNode = get("loop") ?? get("with_items") ?? get("with_list") ?? dict;
  if (loopNode === undefined) return [{ scope, itemLine: null }];
  const loopVar = scalarText(file, pairsOf(file, get("loop_control")).find(([k]) => k === "loop_var")?.[1]) ?? "item";
  const pass = (item: unknown, itemLine: number | null): Pass => ({ scope: [{ [loopVar]: item }, ...scope], itemLine, item });
  if (isSequence(file, loopNode)) return itemsOf(file, loopNode).map((item) => pass(located(file, item), lineOf(file, item)));
  const raw = scalarText(file, loopNode);
  const rendered = raw === null ? renderValue(located(file, loopNode), scope) : render(raw, scope);
  let items: unknown[] | null = null;
  if (rendered.ok && Array.isArray(rendered.value)) items = rendered.value;
  else if (!rendered.ok) items = lazyItems(raw, scope);
  else if (rendered.ok && dict !== undefined && rendered.value !== null && typeof rendered.value === "object")
    items = Object.entries(rendered.value as Record<string, unknown>).map(([key, value]) => ({ key, value }));
  if (items === null) {
    // Only worth a notice when the task may write a service's file (a backup to `x.env.bak` is not one).
    if (!mayDeploy) return [];
    problem(r, {
      kind: "unresolved",
      file: file.path,
      line: lineOf(file, loopNode),
      message: `loop ${raw ?? ""}: ${!rendered.ok ? rendered.reason : "not a list kvgate can read"}; the task is skipped`,
    });
    return [];
  }
  return items.map((v) => pass(v, lineOf(file, loopNode)));
}
