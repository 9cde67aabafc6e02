// The reader's state for one compose file and what every part of the read shares: loading a file
// once, keeping paths inside the repository, the `.env` of a project, and reporting a problem once.
import { posix } from "node:path";
import type { ComposeProblem, ComposeRead, ComposeReadOptions, ComposeSource } from "./records.js";
import { lookupOf, readDotEnv } from "./dotenv.js";
import { UNSET, type Lookup } from "./interpolate.js";
import { mergeNode } from "./merge.js";
import type { CNode } from "./tree.js";
import type { App } from "./app.js";
import { readComposeYaml } from "./yaml.js";

export interface Ctx {
  root: string;
  source: ComposeSource;
  opts: ComposeReadOptions;
  out: ComposeRead;
  seen: Set<string>;
  /** Compose trees by path and project (a file is interpolated with its project's variables). */
  trees: Map<string, CNode | null>;
  /** Included applications by files and project, read once however many paths include them. */
  apps: Map<string, App | null>;
}

/** A Compose project: the folder relative paths start from, and the variables for interpolation. */
export interface Project {
  dir: string;
  env: Lookup;
  /** Tells projects apart in the tree cache (the `.env` files it was read with). */
  id: string;
}

export function newCtx(root: string, source: ComposeSource, opts: ComposeReadOptions): Ctx {
  return {
    root,
    source,
    opts,
    out: { path: root, isCompose: false, deploys: [], problems: [], files: [], composeFiles: [], activeProfiles: null },
    seen: new Set(),
    trees: new Map(),
    apps: new Map(),
  };
}

export function problem(ctx: Ctx, p: ComposeProblem): void {
  const id = `${p.kind}\u0000${p.file}\u0000${p.line}\u0000${p.message}`;
  if (ctx.seen.has(id)) return;
  ctx.seen.add(id);
  ctx.out.problems.push(p);
}

function used(ctx: Ctx, path: string): void {
  if (!ctx.out.files.includes(path)) ctx.out.files.push(path);
}

/** The text of a repository file; null when it is not there. A file that is not text is a parse problem. */
export function readText(ctx: Ctx, path: string): string | null {
  const got = ctx.source(path);
  if (got === null) return null;
  used(ctx, path);
  const file = typeof got === "string" ? { text: got, problem: null } : got;
  if (file.problem !== null || file.text === null) {
    problem(ctx, { kind: "parse", file: path, line: 1, message: `${path}: ${file.problem ?? "the file cannot be read as text"}` });
    return null;
  }
  if (file.text.includes("\u0000")) {
    problem(ctx, { kind: "parse", file: path, line: 1, message: `${path} holds a NUL byte: it is binary, not YAML; restore it as text` });
    return null;
  }
  return file.text;
}

/** `remote`: a URL, git or OCI resource (compose fetches it; kvgate reads only the repository). */
export type Resolved = { ok: true; path: string } | { ok: false; why: string; remote: boolean };

/** A path written in `from` (relative to `dir`), kept inside the repository: absolute paths and paths
 *  that climb out of it are not read (the file on the deploy host is not the one in the repo). */
export function resolvePath(dir: string, written: string): Resolved {
  if (written.startsWith("/") || /^[A-Za-z]:[\\/]/.test(written) || written.startsWith("~")) {
    return {
      ok: false,
      why: `${written} is an absolute path; kvgate reads only files in the repository (write it relative to the compose file)`,
      remote: false,
    };
  }
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(written) || written.startsWith("oci://") || written.startsWith("git@")) {
    return { ok: false, why: `${written} is a remote resource; kvgate reads only files in the repository`, remote: true };
  }
  const p = posix.normalize(posix.join(dir, written));
  if (p === ".." || p.startsWith("../"))
    return { ok: false, why: `${written} leaves the repository; kvgate reads only files in the repository`, remote: false };
  return { ok: true, path: p };
}

/** The variables of a project: its `.env` files, the first given winning over the later ones. */
export function projectOf(ctx: Ctx, dir: string, envFiles: string[], parent?: Project): Project {
  const lookups: Lookup[] = [];
  const ids: string[] = [];
  for (const path of envFiles) {
    const text = readText(ctx, path);
    if (text === null) continue;
    // The `.env` itself is interpolated from the shell Compose runs in, which kvgate does not know.
    const env = readDotEnv(text, path, parent?.env ?? UNSET);
    for (const p of env.problems)
      problem(ctx, { kind: "parse", file: path, line: p.line, message: `${p.message}; docker compose refuses to load it` });
    lookups.push(lookupOf(env));
    ids.push(path);
  }
  // The including project's variables win over the included project's own `.env` (compose spec "Include").
  const chain = parent ? [parent.env, ...lookups.reverse()] : lookups.reverse();
  const env: Lookup = (name) => {
    for (const l of chain) {
      const v = l(name);
      if (v.state !== "unset") return v;
    }
    return { state: "unset" };
  };
  return { dir, env, id: [parent?.id ?? "", ...ids].join("|") };
}

/** A compose file's tree (its documents merged as layers), read once per project; null (with its
 *  problems reported) when compose refuses it. */
export function loadTree(ctx: Ctx, path: string, project: Project): CNode | null {
  const id = `${path}\u0000${project.id}`;
  if (ctx.trees.has(id)) return ctx.trees.get(id) ?? null;
  ctx.trees.set(id, null);
  const text = readText(ctx, path);
  if (text === null) return null;
  const y = readComposeYaml(path, text, project.env);
  if (y.refused) {
    // The finding names the file and line; the message is compose's reason alone.
    problem(ctx, { kind: "parse", file: path, line: y.refused.line, message: y.refused.message });
    return null;
  }
  for (const p of y.problems) problem(ctx, { kind: "parse", file: path, line: p.line, message: p.message });
  if (y.problems.length > 0) return null;
  let tree: CNode | null = null;
  // Documents of one file are layers merged in order, like files given with -f (compose-go loader).
  for (const doc of y.docs) tree = tree === null ? doc : (mergeNode(tree, doc, []) ?? null);
  ctx.trees.set(id, tree);
  return tree;
}

/** Reports a value that stayed unresolved; the caller skips the setting. */
export function unresolved(ctx: Ctx, node: CNode, what: string, service?: string, key?: string): void {
  if (node.t !== "str" || !node.unresolved) return;
  const { vars, required } = node.unresolved;
  if (vars.length === 0) return;
  const names = vars.map((v) => "${" + v + "}").join(", ");
  const reason = required !== undefined ? `required (${required}) and ` : "";
  problem(ctx, {
    kind: "unresolved",
    file: node.pos.file,
    line: node.pos.line,
    message:
      `${what}: ${names} is ${reason}not set in the .env beside the compose file; docker ` +
      `compose takes it from the deploy host's shell, which kvgate cannot see, so the ` +
      `setting is skipped (set it in the .env, or give a default: \${${vars[0]}:-value})`,
    ...(service !== undefined ? { service } : {}),
    ...(key !== undefined ? { key } : {}),
  });
}
