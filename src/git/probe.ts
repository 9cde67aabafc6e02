// The opening question a run asks git (findRepo in repo.ts), in one place so the hook's fast path,
// when it knows the full path will follow, can start the very same command early (exec.ts prefetch).

/** `--git-path` names the opening probe answers. */
export const PROBED_PATHS = ["index", "kvgate", "shallow"] as const;

/** One process answers all of it; `--verify -q HEAD` last prints nothing (exit 1) on an unborn branch. */
export const REPO_PROBE_ARGS: readonly string[] = [
  "rev-parse",
  "--show-toplevel",
  "--show-prefix",
  "--is-shallow-repository",
  "--show-object-format",
  // The paths later steps ask for (the verdict store, the index to copy, the shallow list),
  // answered by this same process instead of one rev-parse each.
  "--path-format=absolute",
  ...PROBED_PATHS.flatMap((p) => ["--git-path", p]),
  "--verify",
  "-q",
  "HEAD",
];
