// The reader's state for one playbook and the few operations every part of the walk shares: loading
// a file once, finding an included file the way Ansible does, reporting, and adding an edit.
import { posix } from "node:path";
import type { EnvEdit, PlaybookDeploy, PlaybookProblem, PlaybookRead, ReadFile, ReadOptions } from "./records.js";
import { parseYamlFile, type YamlFile } from "./nodes.js";
import { YAML_LIMITS } from "../config/yaml-limits.js";

/** The walk's state for one playbook: where edits go and what was read. */
export interface PlaybookWalk {
  root: string;
  read: ReadFile;
  opts: ReadOptions;
  out: PlaybookRead;
  byService: Map<string, PlaybookDeploy>;
  cache: Map<string, YamlFile | null>;
}

export function load(r: PlaybookWalk, path: string): YamlFile | null {
  if (r.cache.has(path)) return r.cache.get(path) ?? null;
  const text = r.read(path);
  const file = text === null ? null : parseYamlFile(path, text, YAML_LIMITS);
  r.cache.set(path, file);
  if (file && !r.out.files.includes(path)) r.out.files.push(path);
  return file;
}

export function problem(r: PlaybookWalk, p: PlaybookProblem): void {
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
