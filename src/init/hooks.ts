// The git hook files `kvgate init` writes under .husky/. Each is a POSIX sh script that works both
// under husky 9 (which runs `.husky/<hook>` through its `.husky/_/` wrappers) and without husky
// (with core.hooksPath=.husky git runs the file itself: hence the shebang and the exec bit).
// HUSKY=0 skips kvgate either way. KVGATE_BIN replaces `npx --no-install kvgate` (a global install,
// or the tests' `node /path/to/bin/kvgate.js`); it is split on spaces, so it must not hold any.

export type HookName = "pre-commit" | "prepare-commit-msg";

export const HOOK_MARKERS: Record<HookName, string> = {
  "pre-commit": "kvgate check --staged",
  "prepare-commit-msg": "kvgate hook prepare-commit-msg",
};

const COMMAND = '${KVGATE_BIN:-npx --no-install kvgate}';

export const HOOK_LINES: Record<HookName, string> = {
  "pre-commit": `[ "\${HUSKY-}" = "0" ] || ${COMMAND} check --staged || exit $?`,
  "prepare-commit-msg": `[ "\${HUSKY-}" = "0" ] || ${COMMAND} hook prepare-commit-msg "$@" || exit $?`,
};

const HEADER = "#!/usr/bin/env sh\n";
const COMMENT = "# kvgate (added by `kvgate init`): HUSKY=0 skips it; KVGATE_BIN overrides the command.\n";

/** True when the hook already runs kvgate (in any spelling that names the command). */
export function hasKvgate(text: string, hook: HookName): boolean {
  const marker = hook === "pre-commit" ? /kvgate(\.js)?["'}]?\s+check\b[^\n]*--staged|kvgate(\.js)?["'}]?\s+--staged/ : /kvgate(\.js)?["'}]?\s+hook\s+prepare-commit-msg/;
  return marker.test(text);
}

/** The hook file's new text, or null when it already runs kvgate (existing lines are kept). */
export function mergeHook(existing: string | null, hook: HookName): string | null {
  if (existing === null || existing.trim() === "") return HEADER + COMMENT + HOOK_LINES[hook] + "\n";
  if (hasKvgate(existing, hook)) return null;
  const body = existing.endsWith("\n") ? existing : existing + "\n";
  return body + COMMENT + HOOK_LINES[hook] + "\n";
}
