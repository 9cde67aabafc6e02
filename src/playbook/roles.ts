// Roles (docs/playbooks.md#roles): `roles:` entries (a name, `{ role: name, vars: … }`, or the old
// `{ role: name, key: value }` params), `import_role`/`include_role` (with `tasks_from`, `vars_from`,
// `defaults_from`, `handlers_from`), found under `roles/` beside the playbook or on ansible.cfg's
// `roles_path`. A role runs its meta/main.yml dependencies first, then tasks/main.yml and its
// handlers, with its defaults under everything and its vars over the play's. A role that includes
// itself, directly or through others, is reported at the line that closes the loop.
import { posix } from "node:path";
import { isMapping, itemsOf, lineOf, pairsOf, scalarText, type YamlFile } from "./nodes.js";
import { load, problem, type PlaybookWalk } from "./walk.js";
import { filesUnder } from "./layout.js";
import { assignPlaced, located, varsOf } from "./vars.js";
import { varsFile } from "./scope.js";
import type { Vars } from "./template.js";
import { cycle, follow, walkTasks, type WalkContext } from "./plays.js";

/** Keys of a `roles:` entry that are keywords, not the role's parameters. */
const KEYWORDS = new Set([
  "role",
  "name",
  "vars",
  "tags",
  "when",
  "become",
  "become_user",
  "become_method",
  "delegate_to",
  "environment",
  "ignore_errors",
  "no_log",
  "run_once",
  "any_errors_fatal",
  "collections",
  "connection",
  "check_mode",
  "diff",
  "debugger",
  "module_defaults",
  "throttle",
  "timeout",
  "apply",
  "public",
  "allow_duplicates",
]);

export interface RoleCall {
  name: string;
  /** The line of the reference, in the file that makes it. */
  line: number;
  /** Role parameters (`vars:` of a roles entry, or its other keys): over the role's own vars. */
  params: Vars;
  /** import_role and `roles:` load at parse time (a cycle is an error); include_role at run time. */
  isStatic: boolean;
  tasksFrom?: string | undefined;
  varsFrom?: string | undefined;
  defaultsFrom?: string | undefined;
  handlersFrom?: string | undefined;
}

/** An entry of a play's `roles:` (or a meta dependency). */
export function walkRoleRef(r: PlaybookWalk, file: YamlFile, ref: unknown, ctx: WalkContext): void {
  const pairs = isMapping(file, ref) ? pairsOf(file, ref) : [];
  const name = isMapping(file, ref) ? scalarText(file, pairs.find(([k]) => k === "role" || k === "name")?.[1]) : scalarText(file, ref);
  if (name === null) return;
  const params: Record<string, unknown> = {};
  assignPlaced(params, varsOf(file, pairs.find(([k]) => k === "vars")?.[1]));
  for (const [k, v, key] of pairs) {
    if (KEYWORDS.has(k)) continue;
    assignPlaced(params, { [k]: located(file, v) }, new Map([[k, { file: file.path, line: lineOf(file, key), name: k, yaml: true }]]));
  }
  walkRole(r, file, { name, line: lineOf(file, ref), params, isStatic: true }, ctx);
}

/** The role's folder: `roles/<name>` beside the playbook, on the roles_path, or the name as a path. */
function findRole(r: PlaybookWalk, name: string): string | null {
  const dirs = [...r.layout.rolesPath.map((d) => (d === "" ? name : `${d}/${name}`)), posix.join(posix.dirname(r.root), name)];
  for (const raw of dirs) {
    const dir = posix.normalize(raw);
    if (dir.startsWith("../")) continue;
    const probe = ["tasks/main.yml", "tasks/main.yaml", "defaults/main.yml", "vars/main.yml", "meta/main.yml", "handlers/main.yml"];
    if (filesUnder(r.listing, dir).length > 0 || probe.some((p) => r.read(`${dir}/${p}`) !== null)) return dir;
  }
  return null;
}

/** `<role>/<sub>/<name>.yml` (or `.yaml`, no extension, or every file of the folder `<name>/`), most specific first. */
function roleFiles(r: PlaybookWalk, dir: string, sub: string, name: string): string[] {
  const base = `${dir}/${sub}/${name.replace(/\.ya?ml$/, "")}`;
  const single = [`${base}.yml`, `${base}.yaml`, base].filter((p) => r.read(p) !== null);
  const folder = filesUnder(r.listing, base).filter((p) => /\.ya?ml$/.test(p));
  return [...single, ...folder.reverse()];
}

function roleLayers(r: PlaybookWalk, dir: string, sub: "vars" | "defaults", name: string): Vars[] {
  return roleFiles(r, dir, sub, name).flatMap((p): Vars[] => {
    const v = varsFile(r, p);
    return v ? [v] : [];
  });
}

export function walkRole(r: PlaybookWalk, file: YamlFile, call: RoleCall, ctx: WalkContext): void {
  const dir = findRole(r, call.name);
  if (dir === null) {
    const where = [...new Set(r.layout.rolesPath.map((d) => (d === "" ? "./" : `${d}/`)))].join(", ");
    problem(r, {
      kind: "unresolved",
      file: file.path,
      line: call.line,
      message:
        `role ${call.name} is not in the repository (looked in ${where}); ` +
        `its tasks are not ` +
        `read${call.name.split(".").length >= 3 ? " (a collection's role is installed by ansible-galaxy)" : ""}`,
    });
    return;
  }
  const marker = `${dir}/`;
  if (cycle(r, file, marker, call.line, ctx.stack, call.isStatic)) return;
  const stack = [...ctx.stack, marker];
  const scope = [
    call.params,
    ...roleLayers(r, dir, "vars", call.varsFrom ?? "main"),
    ...ctx.scope,
    ...roleLayers(r, dir, "defaults", call.defaultsFrom ?? "main"),
    { role_name: posix.basename(dir), role_path: dir },
  ];
  // Its dependencies run first, each with its own variables.
  const meta = [`${dir}/meta/main.yml`, `${dir}/meta/main.yaml`].map((p) => load(r, p)).find((f) => f !== null);
  if (meta && meta.errors.length === 0) {
    const deps = pairsOf(meta, meta.doc.contents).find(([k]) => k === "dependencies")?.[1];
    for (const dep of itemsOf(meta, deps)) walkRoleRef(r, meta, dep, { scope: ctx.scope, stack });
  } else if (meta)
    for (const e of meta.errors)
      problem(r, { kind: "parse", file: meta.path, line: e.line, message: `${meta.path} is not valid YAML: ${e.message}` });
  const own: WalkContext = { scope, stack, roleDir: dir };
  const tasks = roleFiles(r, dir, "tasks", call.tasksFrom ?? "main")[0];
  if (tasks) follow(r, file, tasks, call.line, stack, call.isStatic, (f, st) => walkTasks(r, f, f.doc.contents, { ...own, stack: st }));
  else if (call.tasksFrom)
    problem(r, {
      kind: "unresolved",
      file: file.path,
      line: call.line,
      message: `tasks_from ${call.tasksFrom}: role ${call.name} has no tasks/${call.tasksFrom}; its tasks are not read`,
    });
  const handlers = roleFiles(r, dir, "handlers", call.handlersFrom ?? "main")[0];
  if (handlers)
    follow(r, file, handlers, call.line, stack, call.isStatic, (f, st) => walkTasks(r, f, f.doc.contents, { ...own, stack: st }));
}
