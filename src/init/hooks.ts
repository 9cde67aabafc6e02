// The text of the git hooks `kvgate init` writes. Every hook calls kvgate through bin/kvgate-hook, a
// POSIX sh script shipped in the package that finds node even when a GUI client runs the hook with a
// short PATH, then runs the installed bin/kvgate.js: never `npx`, which costs about 275 ms per hook.
//
// Two shapes:
// - husky (.husky/<hook>, run by husky 9 with `sh -e`): kvgate's line is appended, so it gates the
//   index after the hooks before it (formatters, lint-staged) have re-staged their changes.
// - plain git (<hooks path>/<hook>, run by git itself): a wrapper of kvgate's own that first runs the
//   hook that was there before, moved aside as <hook>.kvgate-chained, so no hook is ever dropped.
// KVGATE_CANARY=1 is `kvgate init`'s self-test: the hook runs kvgate alone, so the test never runs the
// user's other hooks (a formatter, lint-staged or the pre-commit framework would touch the work tree).
// HUSKY=0 skips kvgate, in both shapes.

export type HookName = "pre-commit" | "prepare-commit-msg";
export const HOOK_NAMES: readonly HookName[] = ["pre-commit", "prepare-commit-msg"];

/** What each hook hands kvgate. */
const ARGS: Record<HookName, string> = {
  "pre-commit": "check --staged",
  "prepare-commit-msg": 'hook prepare-commit-msg "$@"',
};

/** The lines an earlier kvgate init wrote (npx, or KVGATE_BIN): replaced in place by the current ones. */
export const OLD_LINES: readonly string[] = [
  '[ "${HUSKY-}" = "0" ] || ${KVGATE_BIN:-npx --no-install kvgate} check --staged || exit $?',
  '[ "${HUSKY-}" = "0" ] || ${KVGATE_BIN:-npx --no-install kvgate} hook prepare-commit-msg "$@" || exit $?',
];
const OLD_COMMENT = "# kvgate (added by `kvgate init`): HUSKY=0 skips it; KVGATE_BIN overrides the command.";

const COMMENT = "# kvgate (added by `kvgate init`): HUSKY=0 skips it; KVGATE_NODE=/path/to/node if a client's PATH lacks node.";
const GUARD_COMMENT = "# kvgate init's self-test (KVGATE_CANARY=1) runs kvgate alone, not the lines below.";

/** A word for sh: bare when it is plainly safe, else single-quoted. */
export function shWord(s: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/** `sh <runner> <args>`: the runner as the hooks name it (relative to the repository root when kvgate is installed in it). */
export function runnerCall(runner: string, hook: HookName): string {
  return `sh ${shWord(runner)} ${ARGS[hook]}`;
}

export function kvgateLine(runner: string, hook: HookName): string {
  return `[ "\${HUSKY-}" = "0" ] || ${runnerCall(runner, hook)} || exit $?`;
}

export function guardLine(runner: string, hook: HookName): string {
  return `[ -z "\${KVGATE_CANARY-}" ] || exec ${runnerCall(runner, hook)}`;
}

/** True when the text already runs kvgate for this hook, in any spelling (npx, a path, bin/kvgate-hook). */
export function hasKvgate(text: string, hook: HookName): boolean {
  const marker =
    hook === "pre-commit"
      ? /kvgate(-hook|\.js)?["'}]?\s+check\b[^\n]*--staged|kvgate(\.js)?["'}]?\s+--staged/
      : /kvgate(-hook|\.js)?["'}]?\s+hook\s+prepare-commit-msg/;
  return marker.test(text);
}

export type HookChange = "wrote" | "appended" | "updated" | "kept" | "kept-own";

/** Lines that are commands of someone else's (not blank, not a comment, not kvgate's). */
function otherCommands(lines: readonly string[], ours: ReadonlySet<string>): boolean {
  return lines.some((l) => {
    const t = l.trim();
    return t !== "" && !t.startsWith("#") && !ours.has(t) && !OLD_LINES.includes(t);
  });
}

/**
 * A husky hook file (or any hook script that already runs kvgate) with kvgate's line: appended once,
 * an earlier kvgate init's line replaced in place, a user's own kvgate line left alone. When the file
 * runs other commands, the self-test guard goes on top.
 */
export function mergeHook(existing: string | null, hook: HookName, runner: string): { text: string; change: HookChange } {
  const line = kvgateLine(runner, hook);
  const guard = guardLine(runner, hook);
  if (existing === null || existing.trim() === "") return { text: `${COMMENT}\n${line}\n`, change: "wrote" };
  let lines = existing.replace(/\n$/, "").split("\n");
  const old = lines.findIndex((l) => OLD_LINES.includes(l.trim()));
  let change: HookChange;
  if (lines.some((l) => l.trim() === line)) {
    change = "kept";
  } else if (old >= 0) {
    lines = lines.map((l, i) => (i === old ? line : l.trim() === OLD_COMMENT ? COMMENT : l));
    change = "updated";
  } else if (hasKvgate(existing, hook)) {
    return { text: existing, change: "kept-own" };
  } else {
    lines.push(COMMENT, line);
    change = "appended";
  }
  const ours = new Set([line, guard]);
  const hasGuard = lines.some((l) => l.trim() === guard);
  if (!hasGuard && otherCommands(lines, ours)) {
    const at = lines[0]?.startsWith("#!") ? 1 : 0;
    lines.splice(at, 0, GUARD_COMMENT, guard);
    if (change === "kept") change = "updated";
  }
  const text = lines.join("\n") + "\n";
  return { text, change: text === existing ? "kept" : change };
}

/** The first line of kvgate's plain-git wrapper: how init knows the file is its own. */
export const WRAPPER_MARK = "# kvgate's git hook, written by `kvgate init`";

export function chainedName(hook: HookName): string {
  return `${hook}.kvgate-chained`;
}

/** kvgate's own hook file for a plain-git hooks folder: the chained hook first, then kvgate. */
export function wrapperHook(runner: string, hook: HookName): string {
  return [
    "#!/bin/sh",
    `${WRAPPER_MARK} (${hook}). The hook that was here before runs first, kept as`,
    `# ${chainedName(hook)}; then kvgate. HUSKY=0 skips kvgate; KVGATE_NODE=/path/to/node if a client's PATH`,
    "# lacks node. KVGATE_CANARY=1 (init's self-test) runs kvgate alone.",
    `chained="\${0%/*}/${chainedName(hook)}"`,
    'if [ -z "${KVGATE_CANARY-}" ] && [ -x "$chained" ]; then "$chained" "$@" || exit $?; fi',
    `[ "\${HUSKY-}" = "0" ] || exec ${runnerCall(runner, hook)}`,
    "",
  ].join("\n");
}
