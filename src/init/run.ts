// `kvgate init` in a user's repository: the hooks, a starter kvgate.yaml and the workflow. It never
// overwrites a file the user has (hooks get kvgate's line appended, once), so a second run changes
// nothing and says so.
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { GateError } from "../errors.js";
import { gitRunner, type GitRunner } from "../git/exec.js";
import { CONFIG_NAMES, parseConfig } from "../config/load.js";
import { mergeHook, type HookName } from "./hooks.js";
import { scanService, starterConfig } from "./starter.js";
import { workflowYaml } from "./workflow.js";

export interface InitReport {
  root: string;
  /** One line per thing done or left alone, for the user. */
  lines: string[];
  changed: number;
}

function read(path: string): string | null {
  return existsSync(path) ? readFileSync(path, "utf8") : null;
}

function writeFile(path: string, text: string, mode?: number): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
  if (mode !== undefined) chmodSync(path, mode);
}

/** husky is the repo's (a dependency in package.json, or installed): it owns core.hooksPath. */
function usesHusky(root: string): boolean {
  if (existsSync(join(root, "node_modules", "husky"))) return true;
  const pkg = read(join(root, "package.json"));
  if (pkg === null) return false;
  try {
    const json = JSON.parse(pkg) as Record<string, Record<string, string> | undefined>;
    return Boolean(json.devDependencies?.husky ?? json.dependencies?.husky);
  } catch {
    return false;
  }
}

async function defaultBranch(git: GitRunner): Promise<string> {
  const remote = (await git.tryRun(["symbolic-ref", "--short", "-q", "refs/remotes/origin/HEAD"]))?.trim();
  if (remote) return remote.replace(/^origin\//, "");
  return (await git.tryRun(["symbolic-ref", "--short", "-q", "HEAD"]))?.trim() || "main";
}

function serviceFiles(root: string): { file: string; text: string }[] {
  const dir = join(root, "scripts");
  if (!existsSync(dir) || !statSync(dir).isDirectory()) return [];
  return readdirSync(dir)
    .filter((n) => n.endsWith(".env") && statSync(join(dir, n)).isFile())
    .sort()
    .map((n) => ({ file: `scripts/${n}`, text: readFileSync(join(dir, n), "utf8") }));
}

/** The one write init makes to git's config: the hooks folder git runs when husky is not there to set it. */
async function setHooksPath(git: GitRunner): Promise<void> {
  try {
    await git.run(["config", "core.hooksPath", ".husky"]);
  } catch (e) {
    const stderr = e instanceof GateError ? String(e.cause) : String(e);
    throw new GateError(`cannot set core.hooksPath: ${stderr.trim()}`, { hint: "run `git config core.hooksPath .husky` yourself" });
  }
}

export async function runInit(dir: string): Promise<InitReport> {
  const probe = gitRunner(dir);
  const top = await probe.tryRun(["rev-parse", "--show-toplevel"]);
  if (!top?.trim()) throw new GateError(`${dir} is not in a git repository`, { hint: "run kvgate init inside the repository (git init first), or pass --repo" });
  const root = top.trim();
  const git = gitRunner(root);
  const lines: string[] = [];
  let changed = 0;

  // 1. The hooks.
  for (const hook of ["pre-commit", "prepare-commit-msg"] as HookName[]) {
    const path = join(root, ".husky", hook);
    const next = mergeHook(read(path), hook);
    if (next === null) {
      lines.push(`kept      .husky/${hook} (it already runs kvgate)`);
      continue;
    }
    const existed = existsSync(path);
    writeFile(path, next, 0o755);
    changed++;
    lines.push(existed ? `appended  .husky/${hook} (kept its lines, added kvgate's)` : `wrote     .husky/${hook}`);
  }
  const hooksPath = (await git.tryRun(["config", "--get", "core.hooksPath"]))?.trim() ?? "";
  if (usesHusky(root)) {
    lines.push(hooksPath === ".husky/_" ? "hooks     husky runs them (core.hooksPath=.husky/_)" : "hooks     husky is a dependency: run `npx husky` (or `npm install` with \"prepare\": \"husky\") to activate them");
  } else if (hooksPath === "" || hooksPath === ".husky") {
    if (hooksPath !== ".husky") {
      await setHooksPath(git);
      changed++;
      lines.push("set       git config core.hooksPath .husky (no husky here: git runs the .husky scripts itself; with husky later, `npx husky` takes over)");
    } else {
      lines.push("kept      core.hooksPath=.husky");
    }
  } else {
    lines.push(`warning   core.hooksPath is ${hooksPath}: left alone; call the two .husky scripts from your hooks there`);
  }

  // 2. The starter config, only when there is none.
  const existing = CONFIG_NAMES.find((n) => existsSync(join(root, n)));
  if (existing) {
    lines.push(`kept      ${existing} (never overwritten)`);
  } else {
    const services = serviceFiles(root).map((f) => scanService(f.file, f.text));
    const text = starterConfig(services);
    parseConfig(text, "kvgate.yaml"); // a starter that does not validate is our bug: fail here, not at the first commit
    writeFile(join(root, "kvgate.yaml"), text);
    changed++;
    const todo = (text.match(/# TODO:/g) ?? []).length;
    lines.push(`wrote     kvgate.yaml (${services.length} service file${services.length === 1 ? "" : "s"}${todo ? `; ${todo} TODO${todo === 1 ? "" : "s"} to fill in` : ""})`);
  }

  // 3. The workflow.
  const workflow = join(root, ".github", "workflows", "kvgate.yml");
  if (existsSync(workflow)) {
    lines.push("kept      .github/workflows/kvgate.yml");
  } else {
    writeFile(workflow, workflowYaml(await defaultBranch(git)));
    changed++;
    lines.push("wrote     .github/workflows/kvgate.yml (checkout with fetch-depth: 0, the kvgate Action, SARIF upload)");
  }
  return { root, lines, changed };
}
