// The compose reader (docs/compose.md): a compose file, its override file, `.env`, extends and
// includes, read into one deploy per service, each edit with the file and line that writes it. It
// never throws and never touches the disk: files come through a callback over what the caller
// already loaded, and what it cannot read it reports.
import type { DeployFile } from "../playbook/records.js";
import type { ComposeRead, ComposeReadOptions, ComposeSource } from "./records.js";
import { newCtx } from "./context.js";
import { overrideFileOf, readApp, rootProject } from "./app.js";
import { deployOf } from "./service.js";

export function readCompose(path: string, files: ReadonlyMap<string, string> | ComposeSource, opts: ComposeReadOptions = {}): ComposeRead {
  const source: ComposeSource = typeof files === "function" ? files : (p) => files.get(p) ?? null;
  const ctx = newCtx(path, source, opts);
  if (source(path) === null) return ctx.out;
  ctx.out.files.push(path);
  const project = rootProject(ctx, path);
  const override = overrideFileOf(ctx, path);
  if (override) ctx.out.composeFiles.push(override);
  const app = readApp(ctx, override ? [path, override] : [path], project, [path]);
  if (!app) return ctx.out;
  ctx.out.isCompose = app.isCompose;
  for (const s of app.services.values()) ctx.out.deploys.push(deployOf(ctx, s));
  return ctx.out;
}

/**
 * Reads every compose file of a snapshot. A file that another compose file pulls in (its override
 * file, an `include`, an `extends: { file }`) is deployed as part of that file, so it is not read as
 * an application of its own; unless the two pull each other in (a cycle, reported by both).
 */
export function readComposeFiles(
  paths: readonly string[],
  files: ReadonlyMap<string, string> | ComposeSource,
  opts: ComposeReadOptions = {},
): ComposeRead[] {
  const reads = [...paths].sort((a, b) => a.localeCompare(b)).map((p) => readCompose(p, files, opts));
  const pulledBy = new Map<string, string[]>();
  for (const r of reads) for (const f of r.composeFiles) if (f !== r.path) pulledBy.set(f, [...(pulledBy.get(f) ?? []), r.path]);
  return reads.filter((r) => !(pulledBy.get(r.path) ?? []).some((by) => !r.composeFiles.includes(by)));
}

/** A compose read as a deploy file, for the functions that take either kind (deployFleet, drift,
 *  placement, problem listing): its deploys already are PlaybookDeploys. */
export function asDeployFile(r: ComposeRead): DeployFile {
  return { path: r.path, kind: "compose", deploys: r.deploys, problems: r.problems, files: r.files };
}
