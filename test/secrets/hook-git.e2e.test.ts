// prepareCommitMsg as a real prepare-commit-msg hook, in real repositories: plain, amend, merge,
// squash, fixup, an empty edited message, and --no-verify. git itself must parse the trailers.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { execFileSync } from "node:child_process";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { build } from "esbuild";

const root = resolve(import.meta.dirname, "..", "..");
let work = "";
let hookJs = "";

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "kvgate-hook-"));
  const entry = join(work, "hook.ts");
  // The hook the CLI implements (src/cli/commands/hook.ts), reduced to the functions under test.
  writeFileSync(
    entry,
    `import { readFileSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { execFileSync } from "node:child_process";
import { prepareCommitMsg } from ${JSON.stringify(join(root, "src/secrets/trailers.ts"))};
import { loadVerdict } from ${JSON.stringify(join(root, "src/git/verdict-store.ts"))};
const [file, source] = process.argv.slice(2);
const git = (...a: string[]) => execFileSync("git", a, { encoding: "utf8" }).trim();
const tree = git("write-tree");
const dir = resolve(git("rev-parse", "--git-path", "kvgate"));
writeFileSync(file!, prepareCommitMsg(readFileSync(file!, "utf8"), source, loadVerdict(dir, tree), tree));
`,
  );
  hookJs = join(work, "hook.mjs");
  await build({ entryPoints: [entry], bundle: true, platform: "node", format: "esm", outfile: hookJs, logLevel: "error" });
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

function repo(): { dir: string; git: (...a: string[]) => string; env: NodeJS.ProcessEnv } {
  const dir = mkdtempSync(join(work, "r-"));
  const env = {
    ...process.env,
    GIT_AUTHOR_NAME: "T",
    GIT_AUTHOR_EMAIL: "t@x",
    GIT_COMMITTER_NAME: "T",
    GIT_COMMITTER_EMAIL: "t@x",
    GIT_EDITOR: "true",
  };
  const git = (...a: string[]): string => execFileSync("git", a, { cwd: dir, env, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  git("init", "-q", "-b", "main");
  git("config", "commit.gpgsign", "false");
  const hook = join(dir, ".git", "hooks", "prepare-commit-msg");
  writeFileSync(hook, `#!/bin/sh\nexec "${process.execPath}" "${hookJs}" "$@"\n`);
  chmodSync(hook, 0o755);
  return { dir, git, env };
}

/** Stores a pass verdict for the staged tree, as `kvgate check --staged` would. */
function recordPass(git: (...a: string[]) => string, dir: string): string {
  const tree = git("write-tree").trim();
  const store = resolve(dir, git("rev-parse", "--git-path", "kvgate").trim());
  execFileSync(process.execPath, [
    "--input-type=module",
    "-e",
    `
    const { saveVerdict } = await import(${JSON.stringify(join(work, "verdict.mjs"))});
    saveVerdict(${JSON.stringify(store)}, ${JSON.stringify(tree)}, { version: 1, tree: ${JSON.stringify(tree)}, verdict: "pass", at: "", allowed: [] });`,
  ]);
  return tree;
}

beforeAll(async () => {
  await build({
    entryPoints: [join(root, "src/git/verdict-store.ts")],
    bundle: true,
    platform: "node",
    format: "esm",
    outfile: join(work, "verdict.mjs"),
    logLevel: "error",
  });
});

const kvgateTrailers = (git: (...a: string[]) => string, rev = "HEAD"): string[] =>
  git("log", "-1", "--format=%(trailers:key=Kvgate-Verdict,valueonly)", rev)
    .split("\n")
    .filter((l) => l.trim() !== "");
const body = (git: (...a: string[]) => string, rev = "HEAD"): string => `${git("log", "-1", "--format=%B", rev).trimEnd()}\n`;

describe("prepare-commit-msg in a real repository", () => {
  test("a commit with a recorded pass gets pass tree=<tree>; --no-verify without a verdict gets not-run", () => {
    const { dir, git } = repo();
    writeFileSync(join(dir, "a.txt"), "1\n");
    git("add", "a.txt");
    const tree = recordPass(git, dir);
    git("commit", "-q", "-m", "first");
    expect(kvgateTrailers(git)).toEqual([`pass tree=${tree}`]);
    writeFileSync(join(dir, "a.txt"), "2\n");
    git("add", "a.txt");
    const tree2 = git("write-tree").trim();
    git("commit", "-q", "--no-verify", "-m", "second");
    expect(kvgateTrailers(git)).toEqual([`not-run tree=${tree2}`]);
  });

  test("--amend replaces the trailer instead of adding a second one", () => {
    const { dir, git } = repo();
    writeFileSync(join(dir, "a.txt"), "1\n");
    git("add", "a.txt");
    git("commit", "-q", "-m", "first\n\nRefs: #61");
    writeFileSync(join(dir, "a.txt"), "1b\n");
    git("add", "a.txt");
    const tree = recordPass(git, dir);
    git("commit", "-q", "--amend", "--no-edit");
    git("commit", "-q", "--amend", "--no-edit");
    expect(kvgateTrailers(git)).toEqual([`pass tree=${tree}`]);
    expect(body(git)).toBe(`first\n\nRefs: #61\nKvgate-Verdict: pass tree=${tree}\n`);
  });

  test("merge, squash and fixup messages stay well formed", () => {
    const { dir, git } = repo();
    writeFileSync(join(dir, "a.txt"), "1\n");
    git("add", "a.txt");
    git("commit", "-q", "-m", "base");
    git("checkout", "-q", "-b", "feature");
    writeFileSync(join(dir, "b.txt"), "b\n");
    git("add", "b.txt");
    git("commit", "-q", "-m", "feature work");
    git("checkout", "-q", "main");
    writeFileSync(join(dir, "c.txt"), "c\n");
    git("add", "c.txt");
    git("commit", "-q", "-m", "main work");

    git("merge", "-q", "--no-ff", "feature");
    expect(body(git).split("\n")[0]).toBe("Merge branch 'feature'");
    expect(kvgateTrailers(git)).toHaveLength(1);
    expect(body(git)).not.toContain("#");

    git("checkout", "-q", "-b", "sq", "HEAD~1");
    git("merge", "-q", "--squash", "feature");
    git("commit", "-q", "--no-edit");
    expect(body(git).startsWith("Squashed commit of the following:")).toBe(true);
    expect(kvgateTrailers(git)).toHaveLength(1);

    writeFileSync(join(dir, "b.txt"), "b2\n");
    git("add", "b.txt");
    git("commit", "-q", "--fixup=HEAD");
    expect(body(git)).toMatch(/^fixup! Squashed commit of the following:\n\nKvgate-Verdict: not-run tree=[0-9a-f]{40}\n$/);
  });

  test("an edited empty message: the user's subject comes first, the trailer in the trailer block", () => {
    const { dir, git, env } = repo();
    writeFileSync(join(dir, "a.txt"), "1\n");
    git("add", "a.txt");
    const tree = recordPass(git, dir);
    execFileSync("git", ["commit", "-q"], { cwd: dir, env: { ...env, GIT_EDITOR: "sed -i -e '1s/^/Typed subject/'" } });
    expect(body(git)).toBe(`Typed subject\n\nKvgate-Verdict: pass tree=${tree}\n`);
  });
});
