// Helpers for the install-path tests: real `git commit`s through installed hooks, a PATH without
// node (what a GUI client gives a hook), husky copied into a temp repo, and the package as `npm pack`
// makes it.
import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { GIT_ENV, makeRepo, type TempRepo } from "./repo.js";
import { kvgate, ROOT } from "./cli.js";

export interface Commit {
  code: number | null;
  out: string;
}

/** `git commit` as the user runs it: the repo's hooks run. `env` entries set to undefined are removed. */
export function gitCommit(r: TempRepo, message: string, env: Record<string, string | undefined> = {}, extra: string[] = []): Commit {
  const full: Record<string, string | undefined> = { ...GIT_ENV, NO_COLOR: "1", ...env };
  for (const [k, v] of Object.entries(full)) if (v === undefined) delete full[k];
  const res = spawnSync("git", ["-c", "commit.gpgsign=false", "commit", "-q", ...extra, "-m", message], {
    cwd: r.dir,
    env: full,
    encoding: "utf8",
  });
  return { code: res.status, out: res.stdout + res.stderr };
}

/** A repository with a README and `kvgate init`'s hooks committed (with --no-verify): the next commit runs them. */
export async function hookedRepo(): Promise<TempRepo> {
  const repo = await makeRepo();
  repo.write("README.md", "fleet\n");
  const init = kvgate(["init"], { cwd: repo.dir });
  if (init.code !== 0) throw new Error(`kvgate init failed: ${init.stdout}${init.stderr}`);
  repo.stage();
  const c = gitCommit(repo, "kvgate init", {}, ["--no-verify"]);
  if (c.code !== 0) throw new Error(`the first commit failed: ${c.out}`);
  return repo;
}

/** After a refused commit: what it staged and wrote, gone from the index and the tree. */
export function discardChanges(repo: TempRepo): void {
  repo.git("reset", "-q", "--hard", "HEAD");
  repo.git("clean", "-qfd");
}

export function commitCount(r: TempRepo): number {
  const out = spawnSync("git", ["rev-list", "--count", "HEAD"], { cwd: r.dir, env: GIT_ENV, encoding: "utf8" });
  return out.status === 0 ? Number(out.stdout.trim()) : 0;
}

/** The node-less commands a hook may need. */
const NODE_TOOLS = new Set(["node", "nodejs", "npm", "npx", "corepack"]);
let minimalBin: string | null = null;

/**
 * A folder standing for PATH=/usr/bin:/bin with node taken out: a symlink to every command there
 * except node, npm, npx and corepack. Made once per test process.
 */
export function pathWithoutNode(): string {
  if (minimalBin && existsSync(minimalBin)) return minimalBin;
  const dir = mkdtempSync(join(tmpdir(), "kvgate-minpath-"));
  for (const from of ["/usr/bin", "/bin"]) {
    if (!existsSync(from)) continue;
    for (const name of readdirSync(from)) {
      if (NODE_TOOLS.has(name) || existsSync(join(dir, name))) continue;
      symlinkSync(join(from, name), join(dir, name));
    }
  }
  minimalBin = dir;
  return dir;
}

/** Places bin/kvgate-hook also looks for node in, whatever HOME is: a test of "no node at all" cannot hide these. */
export const FIXED_NODE_PLACES = ["/opt/homebrew/bin/node", "/usr/local/bin/node", "/home/linuxbrew/.linuxbrew/bin/node"];

/** husky 9 as `npm i -D husky` leaves it: this repository's own copy, and the dependency in package.json. */
export function addHusky(
  r: TempRepo,
  pkg: Record<string, unknown> = { name: "fleet", private: true, devDependencies: { husky: "9.1.7" } },
): void {
  cpSync(join(ROOT, "node_modules", "husky"), join(r.dir, "node_modules", "husky"), { recursive: true });
  r.write("package.json", JSON.stringify(pkg, null, 2) + "\n");
  r.write(".gitignore", "node_modules/\n");
}

/** `npm pack` of this repository into `dest`; returns the tarball's path. */
export function packKvgate(dest: string): string {
  mkdirSync(dest, { recursive: true });
  const name = execFileSync("npm", ["pack", "--silent", "--pack-destination", dest], {
    cwd: ROOT,
    encoding: "utf8",
    env: { ...process.env, npm_config_loglevel: "silent" },
  })
    .trim()
    .split("\n")
    .pop()!;
  return join(dest, name);
}

/** `npm pack` of this repository's husky, so a temp repo installs it offline from a file. */
export function packHusky(dest: string): string {
  const name = execFileSync("npm", ["pack", "--silent", "--pack-destination", dest, join(ROOT, "node_modules", "husky")], {
    cwd: dest,
    encoding: "utf8",
  })
    .trim()
    .split("\n")
    .pop()!;
  return join(dest, name);
}

/** `npm install -D` of local tarballs or git URLs, offline (kvgate has no dependencies to fetch). */
export function npmInstall(r: TempRepo, files: string[]): void {
  const env = { ...process.env };
  delete env.HUSKY; // the temp repo's prepare script runs husky, as in a user's install
  execFileSync("npm", ["install", "-D", "--offline", "--no-audit", "--no-fund", "--loglevel=error", ...files], {
    cwd: r.dir,
    encoding: "utf8",
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
}

/**
 * A bare repository in `bare` holding one commit: this repository's working tree as it is now
 * (tracked and untracked files, minus ignored ones), as branch main and tag v0.1.0. Made with a private index and
 * object folder, so the checkout's index, refs and objects are untouched: what the pre-commit
 * framework clones. Returns the commit's sha.
 */
export function snapshotInto(bare: string): string {
  const tmp = mkdtempSync(join(tmpdir(), "kvgate-snap-"));
  try {
    const objects = execFileSync("git", ["rev-parse", "--path-format=absolute", "--git-path", "objects"], {
      cwd: ROOT,
      env: GIT_ENV,
      encoding: "utf8",
    }).trim();
    mkdirSync(join(tmp, "objects"));
    const env = {
      ...GIT_ENV,
      GIT_INDEX_FILE: join(tmp, "index"),
      GIT_OBJECT_DIRECTORY: join(tmp, "objects"),
      GIT_ALTERNATE_OBJECT_DIRECTORIES: objects,
    };
    const git = (...args: string[]) =>
      execFileSync("git", args, { cwd: ROOT, env, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim();
    git("add", "-A");
    const sha = git("commit-tree", git("write-tree"), "-m", "kvgate working tree, for the pre-commit framework test");
    execFileSync("git", ["init", "-q", "--bare", "-b", "main", bare], { env: GIT_ENV });
    git("push", "-q", bare, `${sha}:refs/heads/main`, `${sha}:refs/tags/v0.1.0`);
    return sha;
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

export function hasCommand(cmd: string, args = ["--version"]): boolean {
  return spawnSync(cmd, args, { encoding: "utf8" }).status === 0;
}
