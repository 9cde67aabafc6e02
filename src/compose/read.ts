// The compose reader (docs/compose.md): a compose project (its files as docker compose picks them,
// `.env`, extends and includes) read into one deploy per service, each edit with the file and line
// that writes it. It never throws and never touches the disk: files come through a callback over what
// the caller already loaded, and what it cannot read it reports.
import { posix } from "node:path";
import type { DeployFile } from "../playbook/records.js";
import type { ComposeProblem, ComposeRead, ComposeReadOptions, ComposeSource } from "./records.js";
import { newCtx, problem } from "./context.js";
import { readApp, rootProject } from "./app.js";
import { deployOf } from "./service.js";
import { composeSettings, folderProjects, type ProjectFiles } from "./project.js";

function sourceOf(files: ReadonlyMap<string, string> | ComposeSource): ComposeSource {
  return typeof files === "function" ? files : (p) => files.get(p) ?? null;
}

/** Reads the compose project rooted at `path`: with its folder's override file, or the files
 *  COMPOSE_FILE names when it names `path` first (see project.ts). */
export function readCompose(path: string, files: ReadonlyMap<string, string> | ComposeSource, opts: ComposeReadOptions = {}): ComposeRead {
  const source = sourceOf(files);
  const problems: ComposeProblem[] = [];
  const dir = posix.dirname(path);
  const project = folderProjects(source, dir, [path], problems).find((p) => p.files[0] === path) ?? { files: [path], composeFileAt: null };
  return readProject(
    project,
    source,
    opts,
    problems.filter((p) => p.file === path),
  );
}

function readProject(files: ProjectFiles, source: ComposeSource, opts: ComposeReadOptions, notes: ComposeProblem[]): ComposeRead {
  const path = files.files[0] as string;
  const ctx = newCtx(path, source, opts);
  for (const n of notes) problem(ctx, n);
  const missing = files.files.filter((f) => source(f) === null);
  if (files.composeFileAt && missing.length > 0) {
    problem(ctx, {
      kind: "parse",
      file: files.composeFileAt.file,
      line: files.composeFileAt.line,
      message:
        `COMPOSE_FILE names ${missing.join(", ")}, which ${missing.length === 1 ? "is" : "are"} ` +
        `not in the repository; docker compose cannot load the project ` +
        `(commit ${missing.length === 1 ? "it" : "them"}, or fix COMPOSE_FILE)`,
    });
    return ctx.out;
  }
  if (source(path) === null) return ctx.out;
  ctx.out.files.push(path);
  if (files.composeFileAt) ctx.out.files.push(files.composeFileAt.file);
  for (const f of files.files.slice(1)) ctx.out.composeFiles.push(f);
  const project = rootProject(ctx, path);
  const settings = composeSettings(source, posix.dirname(path));
  ctx.out.activeProfiles = settings.profiles?.names ?? null;
  const app = readApp(ctx, files.files, project, [path]);
  if (!app) return ctx.out;
  ctx.out.isCompose = app.isCompose;
  for (const s of app.services.values()) {
    const d = deployOf(ctx, s);
    // COMPOSE_PROFILES set: compose starts the services without a profile and those of the profiles
    // named (types/types.go HasProfile; `*` is every profile); the others are not deployed.
    const active = ctx.out.activeProfiles;
    if (active && d.profiles.length > 0 && !active.includes("*") && !d.profiles.some((p) => active.includes(p))) continue;
    ctx.out.deploys.push(d);
  }
  return ctx.out;
}

/**
 * Reads every compose project of a snapshot: per folder, the files docker compose would read there
 * (project.ts), and any other matching file on its own. A file that another project pulls in (its
 * override file, an `include`, an `extends: { file }`) is deployed as part of that project, so it is
 * not read as an application of its own; unless the two pull each other in (a cycle, reported by both).
 */
export function readComposeFiles(
  paths: readonly string[],
  files: ReadonlyMap<string, string> | ComposeSource,
  opts: ComposeReadOptions = {},
): ComposeRead[] {
  const source = sourceOf(files);
  const byDir = new Map<string, string[]>();
  for (const p of [...paths].sort((a, b) => a.localeCompare(b))) byDir.set(posix.dirname(p), [...(byDir.get(posix.dirname(p)) ?? []), p]);
  const reads: ComposeRead[] = [];
  for (const [dir, inDir] of byDir) {
    const notes: ComposeProblem[] = [];
    const projects = folderProjects(source, dir, inDir, notes);
    for (const [i, project] of projects.entries()) {
      const first = project.files[0] as string;
      // A folder's notes (a default file compose does not read) go with its first project.
      reads.push(readProject(project, source, opts, i === 0 ? notes : notes.filter((n) => n.file === first)));
    }
    if (projects.length === 0) for (const n of notes) reads.push({ ...emptyRead(n.file), problems: [n] });
  }
  reads.sort((a, b) => a.path.localeCompare(b.path));
  const pulledBy = new Map<string, string[]>();
  for (const r of reads) for (const f of r.composeFiles) if (f !== r.path) pulledBy.set(f, [...(pulledBy.get(f) ?? []), r.path]);
  return reads.filter((r) => !(pulledBy.get(r.path) ?? []).some((by) => !r.composeFiles.includes(by)));
}

function emptyRead(path: string): ComposeRead {
  return { path, isCompose: false, deploys: [], problems: [], files: [], composeFiles: [], activeProfiles: null };
}

/** A compose read as a deploy file, for the functions that take either kind (deployFleet, drift,
 *  placement, problem listing): its deploys already are PlaybookDeploys. */
export function asDeployFile(r: ComposeRead): DeployFile {
  return { path: r.path, kind: "compose", deploys: r.deploys, problems: r.problems, files: r.files };
}
