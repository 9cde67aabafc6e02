// --all on a plain folder, the process budget of --staged, and output-shaping user config.
import { afterEach, describe, expect, it } from "vitest";
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { openRepo, openTree } from "../../src/git/index.js";
import { GateError } from "../../src/errors.js";
import { makeFolder, makeRepo, type TempFolder } from "../helpers/repo.js";
import { treeFilesOf } from "../helpers/tree-files.js";

const temps: TempFolder[] = [];
afterEach(async () => {
  await Promise.all(temps.splice(0).map((t) => t.cleanup()));
});

describe("--all on a folder that is not a repository", () => {
  it("lists every regular file, skips .git-less junk folders and symlinks (with a notice)", async () => {
    const f = await makeFolder();
    temps.push(f);
    f.write("scripts/a.env", "A=1\nB=2\n");
    f.write("kvgate.yaml", "version: 1\n");
    f.write("node_modules/pkg/index.js", "x\n");
    f.write("img.bin", Buffer.from([0, 1, 2]));
    f.symlink("scripts/a.env", "scripts/link.env");
    const tree = await openTree(f.dir);
    expect(tree.repo).toBeNull();
    const [u, ...rest] = await tree.units({ mode: "all" });
    expect(rest).toEqual([]);
    const files = await treeFilesOf(u);
    expect(files.map((x) => x.path)).toEqual(["img.bin", "kvgate.yaml", "scripts/a.env"]);
    expect(files.find((x) => x.path === "scripts/a.env")).toMatchObject({
      status: "added",
      before: null,
      after: "A=1\nB=2\n",
      size: 8,
      addedLines: [
        { line: 1, text: "A=1" },
        { line: 2, text: "B=2" },
      ],
    });
    expect(files.find((x) => x.path === "img.bin")).toMatchObject({ binary: true, after: null, size: 3 });
    expect(u?.notices).toEqual([{ path: "scripts/link.env", message: expect.stringMatching(/symlink/) }]);
    expect((await u!.after.read(["kvgate.yaml", "nope"])).get("nope")).toBeNull();
  });

  it("other modes, and openRepo, say it is not a repository", async () => {
    const f = await makeFolder();
    temps.push(f);
    const tree = await openTree(f.dir);
    await expect(tree.units({ mode: "staged" })).rejects.toThrow(/not in a git repository/);
    await expect(openRepo(f.dir)).rejects.toBeInstanceOf(GateError);
    await expect(openRepo(f.dir)).rejects.toThrow(/is not in a git repository/);
    await expect(openRepo(join(f.dir, "missing"))).rejects.toThrow(/no such folder/);
  });
});

describe("cost of --staged", () => {
  it("uses a handful of git processes and ONE cat-file for 5 staged files", async () => {
    const r = await makeRepo();
    temps.push(r);
    for (let i = 0; i < 50; i++) r.write(`src/f${i}.txt`, `${i}\n`);
    for (let i = 0; i < 5; i++) r.write(`scripts/s${i}.env`, `A=${i}\n`);
    r.stage();
    r.commit("base");
    for (let i = 0; i < 5; i++) r.write(`scripts/s${i}.env`, `A=${i}\nB=${i}\n`);
    r.stage();
    const trace = join(tmpdir(), `kvgate-trace-${process.pid}-${Date.now()}.log`);
    process.env.GIT_TRACE = trace;
    try {
      // What the engine does: the change, then every env file on both sides.
      const g = await openRepo(r.dir);
      const [u] = await g.units({ mode: "staged" });
      expect(u?.files).toHaveLength(5);
      const after = await u!.after.list();
      expect(after).toHaveLength(55);
      const read = await u!.after.read(after);
      expect(read.get("scripts/s0.env")?.toString()).toBe("A=0\nB=0\n");
      expect(await u!.before!.list()).toEqual(after);
      const before = await u!.before!.read(after);
      expect(before.get("scripts/s0.env")?.toString()).toBe("A=0\n");
      expect(before.get("src/f7.txt")?.toString()).toBe("7\n");
    } finally {
      delete process.env.GIT_TRACE;
    }
    const commands = readFileSync(trace, "utf8")
      .split("\n")
      .flatMap((l) => /trace: built-in: git (\S+)/.exec(l)?.slice(1) ?? []);
    rmSync(trace, { force: true });
    // rev-parse (open, HEAD too), ONE diff (raw and patch), ls-files (the index; HEAD is derived from
    // it), and ONE cat-file for every blob: the change's, then the unchanged files on both sides.
    expect(commands.sort()).toEqual(["cat-file", "diff", "ls-files", "rev-parse"]);
  });

  it("HEAD derived from the index and the staged diff equals HEAD's own listing", async () => {
    const r = await makeRepo();
    temps.push(r);
    r.write("keep.env", "K=1\n");
    r.write("mod.env", "M=1\n");
    r.write("gone.env", "G=1\n");
    r.write("old name.env", "R=1\nR2=2\nR3=3\n");
    r.write("was-file", "x\n");
    r.symlink("keep.env", "was-link");
    r.write("sub/deep.env", "D=1\n");
    r.stage();
    const head = r.commit("base");
    r.write("mod.env", "M=2\n");
    r.remove("gone.env");
    r.git("mv", "old name.env", "new name.env");
    r.write("added.env", "A=1\n");
    r.remove("was-file");
    r.symlink("keep.env", "was-file");
    r.remove("was-link");
    r.write("was-link", "now a file\n");
    r.stage();
    const [u] = await (await openRepo(r.dir)).units({ mode: "staged" });
    await u!.after.list();
    const derived = await u!.before!.list();
    const real = r
      .git("ls-tree", "-r", "--name-only", "-z", head)
      .split("\0")
      .filter((p) => p && p !== "was-link");
    expect(derived).toEqual(real);
    const blobs = await u!.before!.read(derived);
    expect(blobs.get("old name.env")?.toString()).toBe("R=1\nR2=2\nR3=3\n");
    expect(blobs.get("was-file")?.toString()).toBe("x\n");
    expect((await u!.after.read(["was-link", "was-file"])).get("was-link")?.toString()).toBe("now a file\n");
    expect(u!.files.find((f) => f.path === "was-link")).toMatchObject({
      status: "typechange",
      before: null,
      addedLines: [{ line: 1, text: "now a file" }],
    });
    expect(u!.notices.map((n) => n.path)).toEqual(["was-file"]);
  });
});

describe("a conflicted index", () => {
  it("the unmerged path is a notice; HEAD still reads it from HEAD's tree, the index has no entry for it", async () => {
    const r = await makeRepo();
    temps.push(r);
    r.write("a.env", "A=0\n");
    r.write("b.env", "B=0\n");
    r.stage();
    r.commit("base");
    r.git("checkout", "-q", "-b", "side");
    r.write("a.env", "A=side\n");
    r.stage();
    r.commit("side");
    r.git("checkout", "-q", "main");
    r.write("a.env", "A=main\n");
    r.write("b.env", "B=1\n");
    r.stage();
    const head = r.commit("main");
    expect(() => r.git("merge", "-q", "side")).toThrow();
    const [u] = await (await openRepo(r.dir)).units({ mode: "staged" });
    expect(u!.notices).toEqual([{ path: "a.env", message: expect.stringMatching(/^unmerged/) }]);
    expect(u!.files).toEqual([]);
    const before = await u!.before!.read(["a.env", "b.env"]);
    expect([...before].map(([p, b]) => [p, b?.toString()])).toEqual([
      ["a.env", "A=main\n"],
      ["b.env", "B=1\n"],
    ]);
    expect((await u!.after.read(["a.env"])).get("a.env")).toBeNull();
    expect(await u!.before!.list()).toEqual(r.git("ls-tree", "-r", "--name-only", "-z", head).split("\0").filter(Boolean));
    expect(await u!.after.list()).toEqual(["b.env"]);
  });
});

describe("user config that reshapes diff output does not change the answer", () => {
  it("diff.interHunkContext, diff.noprefix, diff.algorithm, color.ui=always, diff.renames=false", async () => {
    const r = await makeRepo();
    temps.push(r);
    for (const [k, v] of [
      ["diff.interHunkContext", "10"],
      ["diff.noprefix", "true"],
      ["diff.algorithm", "histogram"],
      ["color.ui", "always"],
      ["diff.renames", "false"],
      ["diff.relative", "true"],
    ]) {
      r.git("config", k as string, v as string);
    }
    const lines = Array.from({ length: 12 }, (_, i) => `L${i + 1}`);
    r.write("sub/f.txt", lines.join("\n") + "\n");
    r.write("sub/old.txt", "a\nb\nc\nd\n");
    r.stage();
    r.commit("base");
    const next = [...lines];
    next[1] = "two";
    next[5] = "six";
    r.write("sub/f.txt", next.join("\n") + "\n");
    r.git("mv", "sub/old.txt", "sub/new.txt");
    r.stage();
    const [u] = await (await openRepo(r.dir)).units({ mode: "staged" });
    expect(u?.files.map((f) => [f.path, f.status, f.oldPath, f.addedLines.map((l) => l.line)])).toEqual([
      ["sub/f.txt", "modified", null, [2, 6]],
      ["sub/new.txt", "renamed", "sub/old.txt", []],
    ]);
  });
});

describe("hooks run on another index", () => {
  it("GIT_INDEX_FILE (as `git commit -a` sets it) is what --staged reads, relative paths too", async () => {
    const r = await makeRepo();
    temps.push(r);
    r.write("a.env", "A=1\n");
    r.stage();
    r.commit("base");
    r.write("a.env", "A=1\nB=2\n");
    // The default index stays as committed; the temporary one holds the change.
    const env = { ...process.env, GIT_INDEX_FILE: join(r.dir, ".git", "tmp-index") };
    const { execFileSync } = await import("node:child_process");
    execFileSync("git", ["read-tree", "HEAD"], { cwd: r.dir, env });
    execFileSync("git", ["update-index", "--add", "a.env"], { cwd: r.dir, env });
    const cwd = process.cwd();
    try {
      process.chdir(r.dir);
      process.env.GIT_INDEX_FILE = ".git/tmp-index";
      const [u] = await (await openRepo(join(r.dir))).units({ mode: "staged" });
      expect(u?.files.map((f) => [f.path, f.addedLines])).toEqual([["a.env", [{ line: 2, text: "B=2" }]]]);
      expect((await u!.after.read(["a.env"])).get("a.env")?.toString()).toBe("A=1\nB=2\n");
    } finally {
      delete process.env.GIT_INDEX_FILE;
      process.chdir(cwd);
    }
    const [plain] = await (await openRepo(r.dir)).units({ mode: "staged" });
    expect(plain?.files).toEqual([]);
  });
});
