// The playbook reader: plays, their task lists, blocks, includes, roles and vars, walked over the
// YAML AST so that every setting keeps its line. It never throws and never touches the disk: files
// come through a callback over what the caller already loaded, and what it cannot read it reports.
import { posix } from "node:path";
import type { PlaybookRead, ReadFile, ReadOptions } from "./records.js";
import { isMapping, isSequence, itemsOf, lineOf, pairsOf, scalarText, toJs, type YamlFile } from "./nodes.js";
import { load, locate, problem, type PlaybookWalk } from "./walk.js";
import { render, type Scope, type Vars } from "./template.js";
import { moduleHandler, moduleNameOf, type ModuleCall } from "./modules.js";

const INCLUDE_TASKS = new Set(["import_tasks", "include_tasks", "include"]);
const INCLUDE_ROLE = new Set(["import_role", "include_role"]);
const IMPORT_PLAYBOOK = new Set(["import_playbook", "include_playbook"]);
const TASK_SECTIONS = ["pre_tasks", "roles", "tasks", "post_tasks", "handlers"] as const;

export function readPlaybook(path: string, files: ReadonlyMap<string, string> | ReadFile, opts: ReadOptions = {}): PlaybookRead {
  const read: ReadFile = typeof files === "function" ? files : (p) => files.get(p) ?? null;
  const out: PlaybookRead = { path, kind: "playbook", isPlaybook: false, deploys: [], problems: [], files: [] };
  const r: PlaybookWalk = { root: path, read, opts, out, byService: new Map(), cache: new Map() };
  const file = load(r, path);
  if (!file) return out;
  if (file.errors.length > 0) {
    for (const e of file.errors)
      out.problems.push({ kind: "parse", file: path, line: e.line, message: `${path} is not valid YAML: ${e.message}` });
    return out;
  }
  if (!isPlayList(file, file.doc.contents)) return out;
  out.isPlaybook = true;
  walkPlays(r, file, [path]);
  out.deploys = [...r.byService.values()];
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
  const playVars = asVars(toJs(file, play.get("vars")));
  const layers: Vars[] = [...varsFiles(r, file, play.get("vars_files"), [playVars]), playVars, ...groupVars(r, file)];
  for (const section of TASK_SECTIONS) {
    const node = play.get(section);
    if (node === undefined) continue;
    if (section === "roles") {
      for (const role of itemsOf(file, node)) walkRoleRef(r, file, role, layers, stack);
    } else walkTasks(r, file, node, layers, stack);
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
      layers.unshift(asVars(toJs(vars, vars.doc.contents)));
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

/** group_vars/all next to the playbook: the lowest layer Ansible reads for every host. */
function groupVars(r: PlaybookWalk, file: YamlFile): Vars[] {
  const dir = posix.dirname(file.path);
  for (const name of ["group_vars/all.yml", "group_vars/all.yaml", "group_vars/all/main.yml", "group_vars/all/main.yaml"]) {
    const f = load(r, posix.normalize(posix.join(dir, name)));
    if (f) return [asVars(toJs(f, f.doc.contents))];
  }
  return [];
}

function asVars(v: unknown): Vars {
  return v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Vars) : {};
}

function walkRoleRef(r: PlaybookWalk, file: YamlFile, ref: unknown, scope: Scope, stack: string[]): void {
  const name = isMapping(file, ref)
    ? scalarText(file, pairsOf(file, ref).find(([k]) => k === "role" || k === "name")?.[1])
    : scalarText(file, ref);
  if (name === null) return;
  const roleVars = isMapping(file, ref) ? asVars(toJs(file, pairsOf(file, ref).find(([k]) => k === "vars")?.[1])) : {};
  walkRole(r, file, name, lineOf(file, ref), [roleVars, ...scope], stack);
}

function walkRole(r: PlaybookWalk, file: YamlFile, name: string, line: number, scope: Scope, stack: string[]): void {
  const base = [`roles/${name}`, `../roles/${name}`];
  const tasks = firstFound(
    r,
    file,
    base.flatMap((b) => [`${b}/tasks/main.yml`, `${b}/tasks/main.yaml`]),
  );
  if (!tasks) {
    problem(r, {
      kind: "unresolved",
      file: file.path,
      line,
      message: `role ${name} is not in the repository (looked for roles/${name}/tasks/main.yml); its tasks are not read`,
    });
    return;
  }
  const roleDir = posix.dirname(posix.dirname(tasks));
  const layer = (sub: string): Vars[] => {
    for (const name of ["main.yml", "main.yaml"]) {
      const f = load(r, posix.join(roleDir, sub, name));
      if (f) return [asVars(toJs(f, f.doc.contents))];
    }
    return [];
  };
  // Role vars/ sit above play vars; defaults/ below everything.
  const roleScope: Scope = [...layer("vars"), ...scope, ...layer("defaults")];
  follow(r, file, tasks, line, stack, true, (f, st) => walkTasks(r, f, f.doc.contents, roleScope, st));
}

function firstFound(r: PlaybookWalk, file: YamlFile, rels: string[]): string | null {
  for (const rel of rels) {
    const p = locate(r, file.path, rel);
    if (p) return p;
  }
  return null;
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

/** Enters an included file once per chain; a file that includes itself is reported, not followed. */
function follow(
  r: PlaybookWalk,
  file: YamlFile,
  target: string,
  line: number,
  stack: string[],
  isStatic: boolean,
  walk: (f: YamlFile, stack: string[]) => void,
): void {
  if (stack.includes(target)) {
    const chain = [...stack.slice(stack.indexOf(target)), target].join(" → ");
    problem(r, {
      kind: isStatic ? "parse" : "unresolved",
      file: file.path,
      line,
      message: isStatic
        ? `import cycle ${chain}: Ansible refuses to load it; remove the import that closes the loop`
        : `include cycle ${chain}: kvgate reads the file once (a \`when:\` may stop the loop at run time)`,
    });
    return;
  }
  const f = load(r, target);
  if (!f) return;
  if (f.errors.length > 0) {
    for (const e of f.errors)
      problem(r, { kind: "parse", file: target, line: e.line, message: `${target} is not valid YAML: ${e.message}` });
    return;
  }
  walk(f, [...stack, target]);
}

function walkTasks(r: PlaybookWalk, file: YamlFile, node: unknown, scope: Scope, stack: string[]): void {
  for (const task of itemsOf(file, node)) {
    const pairs = pairsOf(file, task);
    if (pairs.length === 0) continue;
    const get = (k: string): unknown => pairs.find(([key]) => key === k)?.[1];
    const taskScope: Scope = [asVars(toJs(file, get("vars"))), ...scope];
    if (get("block") !== undefined) {
      // `rescue` runs only when the block fails (a rollback): it is not part of what the playbook deploys.
      for (const part of ["block", "always"]) if (get(part) !== undefined) walkTasks(r, file, get(part), taskScope, stack);
      continue;
    }
    const include = pairs.find(([k]) => INCLUDE_TASKS.has(shortName(k)));
    if (include) {
      const target = includeTarget(r, file, include[1], taskScope, shortName(include[0]));
      const isStatic = shortName(include[0]) === "import_tasks";
      if (target)
        follow(r, file, target, lineOf(file, include[1]), stack, isStatic, (f, st) => walkTasks(r, f, f.doc.contents, taskScope, st));
      continue;
    }
    const role = pairs.find(([k]) => INCLUDE_ROLE.has(shortName(k)));
    if (role) {
      const name = scalarText(file, pairsOf(file, role[1]).find(([k]) => k === "name")?.[1]);
      if (name !== null) walkRole(r, file, name, lineOf(file, role[1]), taskScope, stack);
      continue;
    }
    for (const [key, value, keyNode] of pairs) {
      const module = moduleNameOf(key);
      const handler = module ? moduleHandler(module) : undefined;
      if (!module || !handler) continue;
      for (const call of calls(r, file, { module, node: value, line: lineOf(file, keyNode), args: get("args") }, get, taskScope))
        handler(r, call);
      break;
    }
  }
}

/** One module call per loop item (`loop`/`with_items`/`with_list`), each with `item` bound. */
function calls(
  r: PlaybookWalk,
  file: YamlFile,
  base: { module: string; node: unknown; line: number; args: unknown },
  get: (k: string) => unknown,
  scope: Scope,
): ModuleCall[] {
  const loopNode = get("loop") ?? get("with_items") ?? get("with_list");
  const call = (s: Scope, itemLine: number | null): ModuleCall => ({ ...base, file, scope: s, itemLine });
  if (loopNode === undefined) return [call(scope, null)];
  const loopVar = scalarText(file, pairsOf(file, get("loop_control")).find(([k]) => k === "loop_var")?.[1]) ?? "item";
  if (isSequence(file, loopNode)) {
    return itemsOf(file, loopNode).map((item) => call([{ [loopVar]: toJs(file, item) }, ...scope], lineOf(file, item)));
  }
  const raw = scalarText(file, loopNode);
  const rendered = raw === null ? null : render(raw, scope);
  if (!rendered || !rendered.ok || !Array.isArray(rendered.value)) {
    // Only worth a notice when the task may write an env file (a backup to `x.env.bak` is not one).
    if (!/\.env\b(?!\.)/.test(JSON.stringify(toJs(file, base.node) ?? "") + JSON.stringify(toJs(file, base.args) ?? ""))) return [];
    problem(r, {
      kind: "unresolved",
      file: file.path,
      line: lineOf(file, loopNode),
      message: `loop ${raw ?? ""}: ${rendered && !rendered.ok ? rendered.reason : "not a list kvgate can read"}; the task is skipped`,
    });
    return [];
  }
  return (rendered.value as unknown[]).map((v) => call([{ [loopVar]: v }, ...scope], lineOf(file, loopNode)));
}
