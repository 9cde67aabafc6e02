// The pre-commit framework (https://pre-commit.com) owns .git/hooks when a repository has a
// .pre-commit-config.yaml: kvgate joins it as a `repo: local` entry that calls the kvgate installed in
// this repository's node_modules (the version package.json pins; no clone, no npm install, offline).
//
// Stage names: pre-commit 3.2 renamed the `commit` stage to `pre-commit`; 3.0.4 (Debian 12's package)
// refuses the new name, and 4.x still accepts the old one (mapping it, with a deprecation warning).
// So the entry says `commit` unless the pre-commit on this machine is 3.2 or newer.
import { runToolSync } from "../git/exec.js";
import { isMap, isSeq, LineCounter, parseDocument } from "yaml";
import { GateError } from "../errors.js";
import { runnerCall } from "./hooks.js";

export const PRE_COMMIT_CONFIG = ".pre-commit-config.yaml";
export const HOOK_IDS = { check: "kvgate", trailers: "kvgate-prepare-commit-msg" } as const;

/** `pre-commit --version` → [major, minor, patch], or null when pre-commit is not on PATH. */
export function preCommitVersion(env: NodeJS.ProcessEnv): number[] | null {
  const r = runToolSync("pre-commit", ["--version"], { env });
  const m = /(\d+)\.(\d+)\.(\d+)/.exec(r.stdout ?? "");
  return r.status === 0 && m ? m.slice(1).map(Number) : null;
}

export function commitStage(version: number[] | null): "commit" | "pre-commit" {
  if (!version) return "commit";
  const [major = 0, minor = 0] = version;
  return major > 3 || (major === 3 && minor >= 2) ? "pre-commit" : "commit";
}

/** The ids of every hook the config lists, by repo; a config that does not parse is a GateError with its line. */
export function configuredHookIds(text: string): Set<string> {
  const lc = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lc });
  if (doc.errors.length > 0) {
    const e = doc.errors[0]!;
    const at = lc.linePos(e.pos[0]);
    throw new GateError(`${PRE_COMMIT_CONFIG}:${at.line} does not parse: ${e.message.split("\n")[0]}`, {
      hint: `fix the YAML (pre-commit validate-config ${PRE_COMMIT_CONFIG}), then run kvgate init again`,
    });
  }
  const repos = isMap(doc.contents) ? doc.contents.get("repos") : null;
  if (!isSeq(repos))
    throw new GateError(`${PRE_COMMIT_CONFIG} has no \`repos:\` list`, {
      hint: "add `repos: []` (pre-commit needs it), then run kvgate init again",
    });
  const ids = new Set<string>();
  for (const repo of repos.items) {
    const hooks = isMap(repo) ? repo.get("hooks") : null;
    if (!isSeq(hooks)) continue;
    for (const h of hooks.items) {
      const id: unknown = isMap(h) ? h.get("id") : null;
      if (typeof id === "string") ids.add(id);
    }
  }
  return ids;
}

/** kvgate's `repo: local` entry as YAML lines, its dash at `dash` (the column of the file's other repos). */
function localEntry(runner: string, stage: string, dash: string): string[] {
  const i1 = dash + "  ";
  const i2 = i1 + "  ";
  const i3 = i2 + "  ";
  return [
    `${dash}# kvgate (added by \`kvgate init\`): the fleet policy gate, run by the kvgate in node_modules.`,
    `${dash}# Install both hook types: pre-commit install -t pre-commit -t prepare-commit-msg`,
    `${dash}- repo: local`,
    `${i1}hooks:`,
    `${i2}- id: ${HOOK_IDS.check}`,
    `${i3}name: kvgate`,
    `${i3}entry: ${runnerCall(runner, "pre-commit")}`,
    `${i3}language: system`,
    `${i3}pass_filenames: false`,
    `${i3}always_run: true`,
    `${i3}stages: [${stage}]${stage === "commit" ? "  # `pre-commit` on pre-commit >= 3.2 (`pre-commit migrate-config`); 3.0 knows only `commit`" : ""}`,
    `${i2}- id: ${HOOK_IDS.trailers}`,
    `${i3}name: kvgate verdict trailers`,
    // pre-commit passes the message file as the one argument.
    `${i3}entry: ${runnerCall(runner, "prepare-commit-msg").replace(' "$@"', "")}`,
    `${i3}language: system`,
    `${i3}always_run: true`,
    `${i3}stages: [prepare-commit-msg]`,
  ];
}

/**
 * The config with kvgate's entry appended to `repos:`, as text so the user's formatting and comments
 * stay as they are. Needs `repos:` to be a block list that ends the file (pre-commit's own layout);
 * otherwise a GateError with the lines to paste.
 */
export function withKvgateEntry(text: string, runner: string, stage: string): string {
  // `repos: []` (an empty flow list) becomes the block list kvgate's entry starts.
  const lines = text
    .replace(/\n+$/, "")
    .split("\n")
    .map((l) => (/^repos:\s*\[\s*\]\s*(#.*)?$/.test(l) ? "repos:" : l));
  const reposAt = lines.findIndex((l) => /^repos:\s*(#.*)?$/.test(l));
  const laterTopKey = lines.slice(reposAt + 1).some((l) => /^[A-Za-z_][\w-]*\s*:/.test(l));
  const item = lines.slice(reposAt + 1).find((l) => /^\s*- /.test(l));
  const paste = localEntry(runner, stage, "  ").join("\n");
  if (reposAt < 0 || laterTopKey) {
    throw new GateError(
      `${PRE_COMMIT_CONFIG}: kvgate adds its entry at the end of a block \`repos:\` list, and this file's \`repos:\` is not one that ends the file`,
      {
        hint: "paste this under `repos:` yourself, then run kvgate init again to check it",
        details: paste.split("\n"),
      },
    );
  }
  const dash = item ? /^(\s*)- /.exec(item)![1]! : "";
  const out = [...lines, ...localEntry(runner, stage, dash)];
  return out.join("\n") + "\n";
}
