// kvgate's hooks in a plain git hooks folder (.git/hooks, or the folder core.hooksPath names), with
// every hook already there kept running: a pre-commit framework hook or a hand-written one is moved
// aside to <hook>.kvgate-chained and kvgate's wrapper runs it first. Hooks kvgate does not install
// (git-lfs's pre-push, post-checkout, ...) are not touched, and core.hooksPath is never changed, so
// nothing that ran before stops running.
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { chainedName, HOOK_NAMES, hasKvgate, mergeHook, WRAPPER_MARK, wrapperHook, type HookName } from "./hooks.js";

/** Every hook name git runs (githooks(5)): a file by one of these names in a hooks folder is live. */
const GIT_HOOKS: readonly string[] = [
  "applypatch-msg",
  "pre-applypatch",
  "post-applypatch",
  "pre-commit",
  "pre-merge-commit",
  "prepare-commit-msg",
  "commit-msg",
  "post-commit",
  "pre-rebase",
  "post-checkout",
  "post-merge",
  "pre-push",
  "pre-receive",
  "update",
  "proc-receive",
  "post-receive",
  "post-update",
  "reference-transaction",
  "push-to-checkout",
  "pre-auto-gc",
  "post-rewrite",
  "sendemail-validate",
  "fsmonitor-watchman",
  "p4-changelist",
  "p4-prepare-changelist",
  "p4-post-changelist",
  "p4-pre-submit",
  "post-index-change",
];

export type HookStep =
  | { hook: HookName; kind: "write" | "update"; path: string; text: string; note: string }
  | { hook: HookName; kind: "chain"; path: string; text: string; chained: string; note: string }
  | { hook: HookName; kind: "keep"; path: string; note: string };

function readText(path: string): string | null {
  return existsSync(path) ? readFileSync(path, "utf8") : null;
}

/**
 * What installing kvgate's two hooks in `dir` takes, or the reason it cannot be done safely (a
 * chained copy already in the way). `shown` is how the folder is named to the user.
 */
export function planGitHooks(dir: string, shown: string, runner: string): { steps: HookStep[]; refusal: string | null } {
  const steps: HookStep[] = [];
  for (const hook of HOOK_NAMES) {
    const path = join(dir, hook);
    const text = readText(path);
    const wrapper = wrapperHook(runner, hook);
    const name = `${shown}/${hook}`;
    if (text === null || text.trim() === "") {
      steps.push({ hook, kind: "write", path, text: wrapper, note: `wrote     ${name}` });
    } else if (text.includes(WRAPPER_MARK)) {
      steps.push(
        text === wrapper
          ? { hook, kind: "keep", path, note: `kept      ${name} (kvgate's)` }
          : { hook, kind: "update", path, text: wrapper, note: `updated   ${name} (kvgate's wrapper, new runner path)` },
      );
    } else if (hasKvgate(text, hook)) {
      // A hook that already calls kvgate (an earlier init's .husky layout, or the user's own line).
      const merged = mergeHook(text, hook, runner);
      steps.push(
        merged.change === "kept" || merged.change === "kept-own"
          ? { hook, kind: "keep", path, note: `kept      ${name} (it already runs kvgate)` }
          : { hook, kind: "update", path, text: merged.text, note: `updated   ${name} (kvgate's line now calls the installed binary)` },
      );
    } else {
      const chained = join(dir, chainedName(hook));
      if (existsSync(chained)) {
        return {
          steps: [],
          refusal:
            `${name} is not kvgate's and ${shown}/${chainedName(hook)} already exists: ` +
            `kvgate will not overwrite either. Merge them into one ${hook} script ` +
            `(or delete the stale ${chainedName(hook)}), then run kvgate init again`,
        };
      }
      steps.push({
        hook,
        kind: "chain",
        path,
        text: wrapper,
        chained,
        note: `chained   ${name}: the hook that was there now runs first, from ${shown}/${chainedName(hook)}; then kvgate`,
      });
    }
  }
  return { steps, refusal: null };
}

export function applyGitHooks(dir: string, steps: readonly HookStep[]): number {
  let changed = 0;
  mkdirSync(dir, { recursive: true });
  for (const s of steps) {
    if (s.kind === "keep") continue;
    if (s.kind === "chain") renameSync(s.path, s.chained);
    writeFileSync(s.path, s.text);
    chmodSync(s.path, 0o755);
    changed++;
  }
  return changed;
}

/** Hooks git would run from `dir` that are not kvgate's own wrappers (what husky's takeover would silence). */
export function liveForeignHooks(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const base = name.endsWith(".kvgate-chained") ? name.slice(0, -".kvgate-chained".length) : name;
    if (!GIT_HOOKS.includes(base)) continue;
    const path = join(dir, name);
    const st = statSync(path);
    if (!st.isFile() || (st.mode & 0o111) === 0) continue;
    if (name === base && readFileSync(path, "utf8").includes(WRAPPER_MARK)) continue;
    out.push(name);
  }
  return out;
}
