// `kvgate hook prepare-commit-msg` answered by the hook bundle (dist/fast.cjs) against the CLI's own
// command (KVGATE_FAST_PATH=0), through real commits with both hooks installed: every message git
// records must be the same, whichever answered, on the shapes of commit that put trailers in
// different places (a template with comment lines, a custom comment character, amend, commit -a,
// --no-verify, cherry-pick).
import { beforeAll, describe, expect, test } from "vitest";
import { execFileSync, spawnSync } from "node:child_process";
import { chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { GIT_ENV, makeRepo, type TempRepo } from "../helpers/repo.js";
import { BIN } from "../helpers/cli.js";

const GOOD_ENV = "ENGINE=tgi\nHOST=fv-ml2\nPORT=8080\n";

/** What one run of the scenario printed to stderr (the hooks' debug lines). */
type Step = (r: TempRepo, git: (args: string[], extra?: Record<string, string>) => string) => void;

const STEPS: [string, Step][] = [
  [
    "a plain commit after a passing check",
    (r, git) => (r.write("README.md", "b\n"), git(["add", "-A"]), git(["commit", "-q", "-m", "docs"])),
  ],
  [
    "an editor commit with a template of comment lines",
    (r, git) => (r.write("README.md", "c\n"), git(["add", "-A"]), git(["commit", "-q"])),
  ],
  [
    "a custom comment character",
    (r, git) => {
      git(["config", "core.commentChar", ";"]);
      r.write("README.md", "d\n");
      git(["add", "-A"]);
      git(["commit", "-q"]);
      git(["config", "--unset", "core.commentChar"]);
    },
  ],
  [
    "commit -a (git holds index.lock while the hooks run)",
    (r, git) => (r.write("README.md", "e\n"), git(["commit", "-q", "-a", "-m", "all"])),
  ],
  [
    "--no-verify (no check ran: not-run)",
    (r, git) => (r.write("README.md", "f\n"), git(["commit", "-q", "-a", "--no-verify", "-m", "skip"])),
  ],
  ["amend without editing", (_r, git) => git(["commit", "-q", "--amend", "--no-edit"])],
  [
    "a cherry-pick keeps the picked commit's trailer",
    (r, git) => {
      git(["checkout", "-q", "-b", "side", "HEAD~2"]);
      r.write("docs/side.md", "s\n");
      git(["add", "-A"]);
      git(["commit", "-q", "-m", "side"]);
      git(["checkout", "-q", "main"]);
      git(["cherry-pick", "side"]);
    },
  ],
  [
    "a fleet change (the check's full path)",
    (r, git) => (r.write("scripts/x.env", GOOD_ENV.replace("8080", "8081")), git(["add", "-A"]), git(["commit", "-q", "-m", "port"])),
  ],
];

async function prepared(): Promise<TempRepo> {
  const r = await makeRepo();
  r.write("README.md", "a\n");
  r.write("scripts/x.env", GOOD_ENV);
  r.stage();
  r.commit("base", { noVerify: true });
  for (const [hook, args] of [
    ["pre-commit", "check --staged"],
    ["prepare-commit-msg", 'hook prepare-commit-msg "$@"'],
  ]) {
    const file = join(r.dir, ".git", "hooks", hook as string);
    writeFileSync(file, `#!/bin/sh\nexec "${process.execPath}" "${BIN}" ${args}\n`);
    chmodSync(file, 0o755);
  }
  return r;
}

/** Runs every step in a fresh repository; returns each commit's message and whether the fast hook answered. */
async function history(fast: boolean): Promise<{ messages: string[]; fastHooks: number }> {
  const r = await prepared();
  let fastHooks = 0;
  const env = { ...GIT_ENV, GIT_EDITOR: "true", KVGATE_DEBUG: "1", KVGATE_FAST_PATH: fast ? "1" : "0" };
  const git = (args: string[]): string => {
    const run = spawnSync("git", args, { cwd: r.dir, env, encoding: "utf8" });
    if (run.status !== 0) throw new Error(`git ${args.join(" ")}: ${run.stderr}`);
    fastHooks += (run.stderr.match(/fast hook: taken/g) ?? []).length;
    return run.stdout;
  };
  try {
    for (const [, step] of STEPS) step(r, git);
    const log = execFileSync("git", ["log", "--all", "--format=%B%x00"], { cwd: r.dir, env: GIT_ENV, encoding: "utf8" });
    return { messages: log.split("\0").map((m) => m.trim()), fastHooks };
  } finally {
    await r.cleanup();
  }
}

describe("prepare-commit-msg from the hook bundle writes what the CLI writes", () => {
  let cli: Awaited<ReturnType<typeof history>>;
  let fast: Awaited<ReturnType<typeof history>>;
  beforeAll(async () => {
    cli = await history(false);
    fast = await history(true);
  });

  test("every commit message is the same", () => {
    expect(fast.messages).toEqual(cli.messages);
    expect(cli.fastHooks).toBe(0);
    // Every commit git made with the hooks (the eight steps, plus the side commit the cherry-pick picks)
    // was answered by the hook bundle, but the amend: it joins HEAD's trailers, which the CLI does.
    expect(fast.fastHooks).toBe(8);
  });

  test("the trailers say what happened", () => {
    const verdicts = fast.messages.filter((m) => m !== "").map((m) => /Kvgate-Verdict: (\S+)/.exec(m)?.[1] ?? "none");
    // Newest first: the fleet change, the cherry-pick (the side commit's pass), the amended -a commit
    // ... down to the base committed without hooks. The amend of the --no-verify commit is not-run: the
    // staged run saw only the amend's own change, never the skipped one it carries (issue 26).
    expect(verdicts).toEqual(["pass", "pass", "not-run", "pass", "not-run", "pass", "pass", "pass", "none"]);
  });
});
