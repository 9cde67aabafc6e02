// The three ways `kvgate init` installs its hooks, chosen from what the repository already uses:
// the pre-commit framework (.pre-commit-config.yaml), husky (a dependency in package.json), or
// plain git (the hooks folder git reads today). Each returns what it did, how to run the installed
// hooks for the proof, or why they are not live with the fix.
import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, isAbsolute, join, relative, resolve } from "node:path";
import { applyGitHooks, liveForeignHooks, planGitHooks } from "./githooks.js";
import { HOOK_NAMES, kvgateLine, mergeHook } from "./hooks.js";
import { huskyState, runHusky, withPrepare } from "./husky.js";
import { commitStage, configuredHookIds, HOOK_IDS, PRE_COMMIT_CONFIG, preCommitVersion, withKvgateEntry } from "./precommit.js";
import type { Runner } from "./canary.js";

export interface Context {
  root: string;
  /** bin/kvgate-hook as the hooks name it: relative to root when kvgate is installed in the repository. */
  runner: string;
  env: NodeJS.ProcessEnv;
}

export interface ModeResult {
  mode: string;
  lines: string[];
  changed: number;
  /** How to run the installed hooks, when init believes they are live. */
  proof: Runner | null;
  /** Why they are not live, and what the user types to fix it. */
  notLive: { reason: string; fix: string[] } | null;
}

export function gitOut(root: string, args: string[], env: NodeJS.ProcessEnv): string | null {
  const r = spawnSync("git", args, { cwd: root, env, encoding: "utf8" });
  return r.status === 0 ? r.stdout.trim() : null;
}

function writeFile(path: string, text: string, mode?: number): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
  if (mode !== undefined) chmodSync(path, mode);
}

function hooksDirOf(ctx: Context): string {
  const dir = gitOut(ctx.root, ["rev-parse", "--git-path", "hooks"], ctx.env) ?? ".git/hooks";
  return isAbsolute(dir) ? dir : resolve(ctx.root, dir);
}

function shown(ctx: Context, path: string): string {
  const rel = relative(ctx.root, path);
  return rel && !rel.startsWith("..") && !isAbsolute(rel) ? rel : path;
}

const INSTALL_FIX = "the hooks call bin/kvgate-hook of the kvgate package: install kvgate into this repository (npm i -D kvgate, or a tarball/git URL: see kvgate's README), then run npx kvgate init again";

export function preCommitFramework(ctx: Context): ModeResult {
  const lines: string[] = [];
  const base = { mode: "the pre-commit framework (.pre-commit-config.yaml)", lines, changed: 0 };
  if (isAbsolute(ctx.runner)) {
    return { ...base, proof: null, notLive: { reason: `kvgate is not installed in this repository (it runs from ${dirname(dirname(ctx.runner))}), and a .pre-commit-config.yaml entry shared by everyone cannot name a path on this machine`, fix: [INSTALL_FIX] } };
  }
  const path = join(ctx.root, PRE_COMMIT_CONFIG);
  const text = readFileSync(path, "utf8");
  const ids = configuredHookIds(text);
  const version = preCommitVersion(ctx.env);
  const stage = commitStage(version);
  if (ids.has(HOOK_IDS.check) && ids.has(HOOK_IDS.trailers)) {
    lines.push(`kept      ${PRE_COMMIT_CONFIG} (it lists ${HOOK_IDS.check} and ${HOOK_IDS.trailers})`);
  } else if (ids.has(HOOK_IDS.check) || ids.has(HOOK_IDS.trailers)) {
    return { ...base, proof: null, notLive: { reason: `${PRE_COMMIT_CONFIG} lists one of kvgate's two hooks (${HOOK_IDS.check}, ${HOOK_IDS.trailers}) but not the other`, fix: [`add the missing one (or remove both and run kvgate init again to have them written)`] } };
  } else {
    writeFile(path, withKvgateEntry(text, ctx.runner, stage));
    base.changed++;
    lines.push(`appended  ${PRE_COMMIT_CONFIG}: a repo: local entry, hooks ${HOOK_IDS.check} (stage ${stage}) and ${HOOK_IDS.trailers}, calling ${ctx.runner}`);
  }
  const install = "pre-commit install -t pre-commit -t prepare-commit-msg";
  if (!version) return { ...base, proof: null, notLive: { reason: "pre-commit is not on PATH, so nothing runs the entries yet", fix: ["install pre-commit (pip install pre-commit, or apt-get install pre-commit)", install, "npx kvgate init (again, to prove the hooks)"] } };
  const dir = hooksDirOf(ctx);
  const missing = HOOK_NAMES.filter((h) => {
    const f = join(dir, h);
    return !existsSync(f) || !readFileSync(f, "utf8").includes("pre-commit");
  });
  if (missing.length > 0) {
    return { ...base, proof: null, notLive: { reason: `pre-commit ${version.join(".")} has not installed its ${missing.join(" and ")} hook in ${shown(ctx, dir)}`, fix: [install, `git add ${PRE_COMMIT_CONFIG} (pre-commit refuses to run with its config unstaged)`, "npx kvgate init (again, to prove the hooks)"] } };
  }
  lines.push(`live      pre-commit ${version.join(".")} runs ${HOOK_IDS.check} and ${HOOK_IDS.trailers} from ${shown(ctx, dir)}/pre-commit and prepare-commit-msg`);
  return { ...base, proof: { kind: "pre-commit", stage, checkId: HOOK_IDS.check, trailersId: HOOK_IDS.trailers }, notLive: null };
}

export function husky(ctx: Context): ModeResult {
  const lines: string[] = [];
  const base = { mode: "husky (a dependency in package.json)", lines, changed: 0 };
  const state = huskyState(ctx.root);
  const hooksPath = gitOut(ctx.root, ["config", "core.hooksPath"], ctx.env);
  const active = hooksPath === ".husky/_";
  // husky 4–8 pointed core.hooksPath at .husky itself and git runs .husky/<hook> directly: kvgate's
  // lines go into those files, and nothing needs activating.
  const legacy = hooksPath === ".husky" || hooksPath === ".husky/";
  if (!active && !legacy) {
    // husky takes over core.hooksPath: every hook git runs today from the current folder would stop.
    const dir = hooksDirOf(ctx);
    const foreign = liveForeignHooks(dir);
    if (foreign.length > 0) {
      return { ...base, proof: null, notLive: {
        reason: `activating husky points core.hooksPath at .husky/_, and git would stop running ${foreign.map((f) => `${shown(ctx, dir)}/${f}`).join(", ")}; kvgate does not drop hooks`,
        fix: [`move what each does into .husky/<its name> (husky runs .husky/pre-push and the like; for git-lfs: \`git lfs pre-push "$@"\` in .husky/pre-push, likewise post-checkout, post-commit, post-merge), delete them, then run npx kvgate init again`],
      } };
    }
  }
  if (isAbsolute(ctx.runner)) lines.push(`warning   kvgate is not installed in this repository: .husky/ names ${ctx.runner}, which other clones do not have (npm i -D kvgate, then kvgate init again)`);
  for (const hook of HOOK_NAMES) {
    const path = join(ctx.root, ".husky", hook);
    const { text, change } = mergeHook(existsSync(path) ? readFileSync(path, "utf8") : null, hook, ctx.runner);
    if (change === "kept" || change === "kept-own") {
      lines.push(`kept      .husky/${hook} (${change === "kept" ? "kvgate's line is there" : "it already runs kvgate its own way"})`);
      continue;
    }
    writeFile(path, text, 0o755);
    base.changed++;
    lines.push(`${change.padEnd(9)} .husky/${hook}${change === "appended" ? " (kept its lines; kvgate's runs last, on the index they leave)" : change === "updated" ? " (kvgate's lines now call the installed binary through bin/kvgate-hook)" : ""}`);
  }
  const pkgPath = join(ctx.root, "package.json");
  if (!legacy && existsSync(pkgPath)) {
    const next = withPrepare(readFileSync(pkgPath, "utf8"));
    if (next) {
      writeFile(pkgPath, next.text);
      base.changed++;
      lines.push(`set       package.json scripts ${next.note} (every npm install activates the hooks in each clone)`);
    } else {
      lines.push(`kept      package.json's prepare script (it runs husky)`);
    }
  }
  if (legacy) {
    lines.push("live      husky before 9 (core.hooksPath=.husky): git runs .husky/pre-commit and prepare-commit-msg itself");
    return { ...base, proof: { kind: "git", hooksDir: hooksDirOf(ctx) }, notLive: null };
  }
  if (!state.bin) {
    const old = existsSync(join(ctx.root, "node_modules", "husky"));
    return { ...base, proof: null, notLive: old
      ? { reason: "the husky in node_modules is older than 9 and not active", fix: ["npx husky install (husky 8), or npm i -D husky@9", "npx kvgate init (again, to prove the hooks)"] }
      : { reason: "husky is in package.json but not installed (no node_modules/husky)", fix: ["npm install (its prepare script runs husky)", "npx kvgate init (again, to prove the hooks)"] } };
  }
  const env = { ...ctx.env };
  delete env.HUSKY;
  if (!active || !existsSync(join(ctx.root, ".husky", "_", "h"))) {
    const failed = runHusky(ctx.root, state.bin, env);
    if (failed) return { ...base, proof: null, notLive: { reason: `husky did not install: ${failed}`, fix: ["npx husky (and read what it says)", "npx kvgate init (again, to prove the hooks)"] } };
    base.changed++;
    lines.push("ran       husky: core.hooksPath=.husky/_ (as `husky init` does)");
  }
  if (ctx.env.HUSKY === "0") lines.push("warning   HUSKY=0 is set in this shell: husky skips every hook here until you unset it");
  lines.push(`live      git runs .husky/_/pre-commit and prepare-commit-msg, which run .husky/<hook> with node_modules/.bin on PATH`);
  return { ...base, proof: { kind: "git", hooksDir: hooksDirOf(ctx) }, notLive: null };
}

export function plainGit(ctx: Context): ModeResult {
  const lines: string[] = [];
  const configured = gitOut(ctx.root, ["config", "core.hooksPath"], ctx.env);
  const dir = hooksDirOf(ctx);
  const common = gitOut(ctx.root, ["rev-parse", "--git-common-dir"], ctx.env);
  const commonDir = common ? resolve(ctx.root, common) : join(ctx.root, ".git");
  const inside = (p: string) => !relative(p, dir).startsWith("..") && !isAbsolute(relative(p, dir));
  const base = { mode: configured ? `plain git (core.hooksPath=${configured})` : "plain git (.git/hooks)", lines, changed: 0 };
  if (configured && !inside(ctx.root) && !inside(commonDir)) {
    return { ...base, proof: null, notLive: {
      reason: `core.hooksPath is ${configured} (${dir}), a folder outside this repository that other repositories share: kvgate does not write there`,
      fix: HOOK_NAMES.map((h) => `add to ${join(dir, h)}: ${kvgateLine(ctx.runner, h)}`).concat("npx kvgate init (again, to prove the hooks)"),
    } };
  }
  if (isAbsolute(ctx.runner) && /[\\/]_npx[\\/]/.test(ctx.runner)) lines.push(`warning   kvgate runs from npx's cache (${ctx.runner}); the hooks break when that cache is cleared: npm i -D kvgate (or npm i -g kvgate), then kvgate init again`);
  const { steps, refusal } = planGitHooks(dir, shown(ctx, dir), ctx.runner);
  if (refusal) return { ...base, proof: null, notLive: { reason: refusal, fix: [] } };
  base.changed += applyGitHooks(dir, steps);
  lines.push(...steps.map((s) => s.note));
  const others = liveForeignHooks(dir).filter((h) => !h.endsWith(".kvgate-chained"));
  lines.push(`live      git runs ${shown(ctx, dir)}/pre-commit and prepare-commit-msg${others.length ? `; left as they were: ${others.join(", ")}` : ""}`);
  if (inside(commonDir)) lines.push(`note      ${shown(ctx, dir)} is per clone: each clone runs npx kvgate init once (or use husky, which package.json carries to every clone)`);
  return { ...base, proof: { kind: "git", hooksDir: dir }, notLive: null };
}
