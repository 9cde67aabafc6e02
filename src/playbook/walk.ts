// The reader's state for one playbook and the few operations every part of the walk shares: loading
// a file once, finding an included file the way Ansible does, reporting, and adding an edit.
import { posix } from "node:path";
import type { EnvEdit, PlaybookDeploy, PlaybookProblem, PlaybookRead, ReadFile, ReadOptions } from "./records.js";
import { parseYamlFile, type YamlFile } from "./nodes.js";
import type { AnsibleLayout } from "./layout.js";
import type { Inventory } from "./inventory.js";
import { YAML_LIMITS } from "../config/yaml-limits.js";

/** The walk's state for one playbook: where edits go and what was read. */
export interface PlaybookWalk {
  root: string;
  read: ReadFile;
  opts: ReadOptions;
  out: PlaybookRead;
  byService: Map<string, PlaybookDeploy>;
  cache: Map<string, YamlFile | null>;
  /** The inventory host the walk renders for (a play over three hosts is walked three times), with
   *  where the inventory names it; null when the play's hosts are not known. */
  host: { name: string; file: string; line: number } | null;
  /** Every path of the repository, when known (folders of vars files, inventories, roles). */
  listing: readonly string[] | null;
  layout: AnsibleLayout;
  inventory: Inventory;
}

export function load(r: PlaybookWalk, path: string): YamlFile | null {
  if (r.cache.has(path)) return r.cache.get(path) ?? null;
  const text = r.read(path);
  if (text === null) unreadable(r, path);
  const file = text === null ? null : parseYamlFile(path, text, YAML_LIMITS);
  r.cache.set(path, file);
  if (file && !r.out.files.includes(path)) r.out.files.push(path);
  return file;
}

/** A file the walk needs that is in the repository but is not text: a parse problem at it (Ansible fails on it too). */
export function unreadable(r: PlaybookWalk, path: string): boolean {
  const why = r.opts.unreadable?.(path) ?? null;
  if (why !== null) problem(r, { kind: "parse", file: path, line: 1, message: `${path}: ${why}` });
  return why !== null;
}

/** Reports a problem once (a play walked for three hosts meets the same one three times). */
export function problem(r: PlaybookWalk, p: PlaybookProblem): void {
  if (r.out.problems.some((q) => q.file === p.file && q.line === p.line && q.message === p.message && q.service === p.service)) return;
  r.out.problems.push(p);
}

/** Ansible looks next to the including file first, then next to the playbook. */
export function locate(r: PlaybookWalk, from: string, rel: string, subdirs: readonly string[] = [""]): string | null {
  if (rel.startsWith("/")) return null;
  const dirs = [posix.dirname(from), posix.dirname(r.root)];
  for (const dir of dirs) {
    for (const sub of subdirs) {
      const p = posix.normalize(posix.join(dir, sub, rel));
      if (!p.startsWith("../") && r.read(p) !== null) return p;
    }
  }
  return null;
}

/** Adds an edit to the service's deploy (one deploy per service per playbook, edits in task order). */
export function emit(r: PlaybookWalk, service: string, envFile: string, edit: EnvEdit): void {
  let d = r.byService.get(service);
  if (!d) {
    d = { playbook: r.root, service, envFile, edits: [] };
    r.byService.set(service, d);
  }
  d.edits.push(edit);
}
