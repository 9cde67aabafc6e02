// husky 9 in the user's repository: what `husky init` does, done by `kvgate init` so the hooks are live
// when it exits: a "prepare": "husky" script (so every later `npm install` re-activates them in each
// clone) and one run of husky (core.hooksPath=.husky/_, the wrappers that source
// ~/.config/husky/init.sh and put node_modules/.bin on PATH before running .husky/<hook>).
import { runToolSync } from "../git/exec.js";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";

export interface HuskyState {
  /** husky is a dependency in package.json. */
  declared: boolean;
  /** node_modules/husky/bin.js is there to run. */
  bin: string | null;
}

export function huskyState(root: string): HuskyState {
  const bin = join(root, "node_modules", "husky", "bin.js");
  let declared = false;
  const pkg = join(root, "package.json");
  if (existsSync(pkg)) {
    try {
      const json = JSON.parse(readFileSync(pkg, "utf8")) as Record<string, Record<string, string> | undefined>;
      declared = Boolean(json.devDependencies?.husky ?? json.dependencies?.husky);
    } catch {
      declared = false;
    }
  }
  return { declared, bin: existsSync(bin) ? bin : null };
}

/**
 * package.json with "prepare" running husky: added when missing, `&& husky` appended to a prepare
 * that does not run it yet (what `husky init` would overwrite). Indentation kept, as husky does.
 * null: nothing to change.
 */
export function withPrepare(text: string): { text: string; note: string } | null {
  const json = JSON.parse(text) as { scripts?: Record<string, string> };
  const scripts = (json.scripts ??= {});
  const current = scripts.prepare;
  if (current !== undefined && /(^|[\s;&|(])husky($|[\s;&|)])/.test(current)) return null;
  scripts.prepare = current === undefined || current.trim() === "" ? "husky" : `${current} && husky`;
  const indent = /^[ \t]*"/m.exec(text.slice(text.indexOf("{") + 1))?.[0].replace('"', "") ?? "  ";
  return {
    text: JSON.stringify(json, null, indent.includes("\t") ? "\t" : indent.length || 2) + "\n",
    note: `"prepare": ${JSON.stringify(scripts.prepare)}`,
  };
}

/** Runs husky as `npm install`'s prepare would; returns what went wrong, or null. */
export function runHusky(root: string, bin: string, env: NodeJS.ProcessEnv): string | null {
  const r = runToolSync(process.execPath, [bin], { cwd: root, env });
  if (r.error) return r.error.message;
  // husky 9 reports its failures on stdout and still exits 0 ("HUSKY=0 skip install", ".git can't be found").
  const said = `${r.stdout ?? ""}${r.stderr ?? ""}`.trim();
  if (r.status !== 0 || said !== "") return said || `husky exited ${r.status}`;
  return null;
}
