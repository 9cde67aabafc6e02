// Real git repositories in temp folders, for end-to-end tests (no mocks).
//
//   const repo = await makeRepo();                 // git init -b main, fixed identity, no signing
//   repo.write("scripts/a.env", "ENGINE=vllm\n");  // creates folders as needed
//   repo.stage();                                  // git add -A (or stage(["scripts/a.env"]))
//   const sha = repo.commit("add a");              // returns the new HEAD sha
//   repo.git("log", "--oneline");                  // any git command, returns stdout
//   await repo.cleanup();                          // in afterEach / afterAll
//
// `makeFolder()` (test/helpers/folder.ts) gives the same write/remove/cleanup on a folder that is not a
// repository, without git: unit tests import it from there.
//
// Git runs with a fixed identity and dates and without the user's global config, so shas are stable.
import { execFileSync } from "node:child_process";
import { mkdtempSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { folderAt, makeFolder, type TempFolder } from "./folder.js";

export { makeFolder, type TempFolder };

// A test run from inside a git hook would otherwise aim every git command at the outer repository.
// HUSKY=0 (set by CI for installs, or by a developer) would silently skip the hooks a test installs.
for (const key of ["GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_PREFIX", "GIT_OBJECT_DIRECTORY", "GIT_COMMON_DIR", "HUSKY"]) {
  delete process.env[key];
}

/** The environment every helper git command runs with. */
export const GIT_ENV: NodeJS.ProcessEnv = {
  ...process.env,
  GIT_AUTHOR_NAME: "Kvgate Test",
  GIT_AUTHOR_EMAIL: "test@kvgate.invalid",
  GIT_COMMITTER_NAME: "Kvgate Test",
  GIT_COMMITTER_EMAIL: "test@kvgate.invalid",
  GIT_AUTHOR_DATE: "2024-01-01T00:00:00Z",
  GIT_COMMITTER_DATE: "2024-01-01T00:00:00Z",
  GIT_CONFIG_GLOBAL: "/dev/null",
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_TERMINAL_PROMPT: "0",
};

export interface TempRepo extends TempFolder {
  /** Runs git in the repository; returns stdout. Throws (with git's stderr) on failure. */
  git(...args: string[]): string;
  /** `git add -A`, or `git add -- paths`. */
  stage(paths?: string[]): void;
  /** Commits what is staged (running the repo's hooks unless noVerify); returns the new HEAD sha. */
  commit(message: string, opts?: { allowEmpty?: boolean; noVerify?: boolean }): string;
  /** Clones this repository (e.g. `["--depth", "1"]`) into a new temp folder, via file:// so depth works. */
  clone(args?: string[]): TempRepo;
}

export async function makeRepo(): Promise<TempRepo> {
  const folder = await makeFolder();
  run(folder.dir, ["init", "-q", "-b", "main"]);
  return repoAt(folder);
}

function run(cwd: string, args: string[]): string {
  const fixed = [
    "-c",
    "init.defaultBranch=main",
    "-c",
    "commit.gpgsign=false",
    "-c",
    "tag.gpgsign=false",
    "-c",
    "core.autocrlf=false",
    "-c",
    "protocol.file.allow=always",
  ];
  return execFileSync("git", [...fixed, ...args], { cwd, env: GIT_ENV, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
}

/** Clones the repository at `source` (a work tree or a bare one) into a new temp folder, via file:// so depth works. */
export function cloneRepo(source: string, args: string[] = []): TempRepo {
  const target = realpathSync(mkdtempSync(join(tmpdir(), "kvgate-clone-")));
  run(target, ["clone", "-q", ...args, `file://${source}`, "."]);
  return repoAt(folderAt(target));
}

function repoAt(folder: TempFolder): TempRepo {
  const { dir } = folder;
  const repo: TempRepo = {
    ...folder,
    git: (...args) => run(dir, args),
    stage(paths) {
      run(dir, paths ? ["add", "--", ...paths] : ["add", "-A"]);
    },
    commit(message, opts = {}) {
      const flags = [...(opts.allowEmpty ? ["--allow-empty"] : []), ...(opts.noVerify ? ["--no-verify"] : [])];
      run(dir, ["commit", "-q", ...flags, "-m", message]);
      return run(dir, ["rev-parse", "HEAD"]).trim();
    },
    clone: (args = []) => cloneRepo(dir, args),
  };
  return repo;
}
