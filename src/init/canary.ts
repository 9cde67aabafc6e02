// `kvgate init`'s proof that the hooks it installed are live: the installed pre-commit hook runs on a
// canary change (a made-up GitHub token) staged in a temporary copy of the index, with new objects
// written to a temporary object folder, and must refuse it; the installed prepare-commit-msg hook
// must then write the Kvgate-Verdict trailer into a scratch message file. The user's index, working
// tree, refs and object store are never written; the verdict record the run leaves is removed.
import { runToolSync } from "../git/exec.js";
import { randomBytes } from "node:crypto";
import {
  accessSync,
  constants,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { isAbsolute, join, resolve } from "node:path";

const CANARY_PATH = "kvgate-canary.txt";
const CANARY_RULE = "secret/github-token";

/** How the hooks are run: straight from the hooks folder, or through the pre-commit framework. */
export type Runner = { kind: "git"; hooksDir: string } | { kind: "pre-commit"; stage: string; checkId: string; trailersId: string };

export interface Proof {
  ok: boolean;
  /** One line per hook, for the user. */
  lines: string[];
  /** The hook's own output when it did not do what was expected (for the fix). */
  output: string;
}

/** A token of the GitHub shape that no one was ever issued: random, fresh at every run. */
function canaryToken(): string {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  return "ghp_" + [...randomBytes(36)].map((b) => alphabet[b % alphabet.length]).join("");
}

function git(root: string, args: string[], env: NodeJS.ProcessEnv, input?: string): string {
  const r = runToolSync("git", args, { cwd: root, env, input });
  if (r.status !== 0) throw new Error(`git ${args.join(" ")}: ${(r.stderr || r.error?.message || "").trim()}`);
  return r.stdout.trim();
}

function abs(root: string, p: string): string {
  return isAbsolute(p) ? p : resolve(root, p);
}

function tail(text: string, n = 12): string {
  return text.trim().split("\n").slice(-n).join("\n");
}

/**
 * The environment the hooks run with: the user's, minus what would make the test lie (HUSKY=0 would
 * skip kvgate, the override variable would let the canary through, an outer hook's GIT_* would aim
 * git elsewhere), plus the temporary index and object folder.
 */
function canaryEnv(base: NodeJS.ProcessEnv, override: string, extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...base };
  for (const k of [
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_INDEX_FILE",
    "GIT_OBJECT_DIRECTORY",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_COMMON_DIR",
    "GIT_PREFIX",
    "HUSKY",
    override,
  ])
    delete env[k];
  return { ...env, NO_COLOR: "1", KVGATE_CANARY: "1", ...extra };
}

export function proveHooks(root: string, runner: Runner, opts: { override: string; env?: NodeJS.ProcessEnv }): Proof {
  const base = opts.env ?? process.env;
  const plain = canaryEnv(base, opts.override, {});
  const tmp = mkdtempSync(join(tmpdir(), "kvgate-canary-"));
  const lines: string[] = [];
  try {
    const index = abs(root, git(root, ["rev-parse", "--git-path", "index"], plain));
    const objects = abs(root, git(root, ["rev-parse", "--git-path", "objects"], plain));
    const verdicts = abs(root, git(root, ["rev-parse", "--git-path", "kvgate"], plain));
    const tmpIndex = join(tmp, "index");
    if (existsSync(index)) copyFileSync(index, tmpIndex);
    mkdirSync(join(tmp, "objects"));
    const env = canaryEnv(base, opts.override, {
      GIT_INDEX_FILE: tmpIndex,
      GIT_OBJECT_DIRECTORY: join(tmp, "objects"),
      GIT_ALTERNATE_OBJECT_DIRECTORIES: objects,
    });
    const blob = git(
      root,
      ["hash-object", "-w", "--stdin"],
      env,
      `# kvgate init's canary: a made-up GitHub token in a temporary index, never committed\nGITHUB_TOKEN=${canaryToken()}\n`,
    );
    git(root, ["update-index", "--add", "--cacheinfo", `100644,${blob},${CANARY_PATH}`], env);
    // The records the hooks leave for the canary are removed after (named by its staged key and its
    // index's checksum): what was there before stays.
    const folder = join(verdicts, "verdicts");
    const listed = (): string[] => (existsSync(folder) ? readdirSync(folder) : []);
    const kept = new Set(listed());

    try {
      // 1. pre-commit must refuse the canary, naming it.
      const pre = runHook(root, runner, "pre-commit", [], env);
      const named = pre.output.includes(CANARY_RULE) && pre.output.includes(CANARY_PATH);
      if (pre.code === 0 || !named) {
        const why = pre.code === 0 ? "let it through (exit 0)" : `failed (exit ${pre.code}) without kvgate's ${CANARY_RULE} finding for it`;
        return {
          ok: false,
          lines: [
            `NOT LIVE  pre-commit: a canary commit (a made-up GitHub token in ${CANARY_PATH}) was staged in a temporary index, and the installed hook ${why}`,
          ],
          output: tail(pre.output),
        };
      }
      lines.push(
        `proved    pre-commit: the installed hook refused a canary commit (a made-up GitHub ` +
          `token in ${CANARY_PATH}, staged in a temporary index): ${CANARY_RULE}, exit ${pre.code}`,
      );

      // 2. prepare-commit-msg must record the verdict.
      const msg = join(tmp, "COMMIT_EDITMSG");
      writeFileSync(msg, "kvgate init: canary\n");
      const prep = runHook(root, runner, "prepare-commit-msg", [msg, "message"], env);
      const written = readFileSync(msg, "utf8");
      if (prep.code !== 0 || !/^Kvgate-Verdict: /m.test(written)) {
        const why = prep.code !== 0 ? `failed (exit ${prep.code})` : "ran but wrote no Kvgate-Verdict trailer";
        return { ok: false, lines: [...lines, `NOT LIVE  prepare-commit-msg: the installed hook ${why}`], output: tail(prep.output) };
      }
      lines.push(`proved    prepare-commit-msg: the installed hook recorded "${/^Kvgate-Verdict: \S+/m.exec(written)![0]}" for the canary`);
      return { ok: true, lines, output: "" };
    } finally {
      for (const f of listed()) if (!kept.has(f)) unlinkSync(join(folder, f));
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

function runHook(
  root: string,
  runner: Runner,
  hook: "pre-commit" | "prepare-commit-msg",
  args: string[],
  env: NodeJS.ProcessEnv,
): { code: number | null; output: string } {
  let file: string;
  let argv: string[];
  if (runner.kind === "git") {
    file = join(runner.hooksDir, hook);
    try {
      accessSync(file, constants.X_OK);
    } catch {
      return { code: 127, output: `${file} is missing or not executable: git would not run it` };
    }
    argv = args;
  } else {
    // `--files` keeps pre-commit from stashing the work tree (the temporary index differs from it);
    // the hooks run regardless (always_run), and prepare-commit-msg gets the message file.
    file = "pre-commit";
    argv =
      hook === "pre-commit"
        ? ["run", runner.checkId, "--hook-stage", runner.stage, "--files", ".pre-commit-config.yaml"]
        : [
            "run",
            runner.trailersId,
            "--hook-stage",
            "prepare-commit-msg",
            "--commit-msg-filename",
            args[0]!,
            "--prepare-commit-message-source",
            "message",
            "--files",
            ".pre-commit-config.yaml",
          ];
  }
  const r = runToolSync(file, argv, { cwd: root, env, timeout: 120_000 });
  if (r.error) return { code: 127, output: `${file}: ${r.error.message}` };
  return { code: r.status, output: `${r.stdout ?? ""}${r.stderr ?? ""}` };
}
