// End-to-end: the change model against real temp repositories, one case per line of issue 2 item 1.
import { afterEach, describe, expect, it } from "vitest";
import { join } from "node:path";
import { openRepo, openTree } from "../../src/git/index.js";
import type { ChangedFile, DeployUnit } from "../../src/git/index.js";
import { GateError } from "../../src/errors.js";
import { makeRepo, type TempRepo, type TempFolder } from "../helpers/repo.js";
import { treeFilesOf } from "../helpers/tree-files.js";

const temps: TempFolder[] = [];
async function repo(): Promise<TempRepo> {
  const r = await makeRepo();
  temps.push(r);
  return r;
}
afterEach(async () => {
  await Promise.all(temps.splice(0).map((t) => t.cleanup()));
});

function byPath(unit: DeployUnit): Record<string, ChangedFile> {
  return Object.fromEntries(unit.files.map((f) => [f.path, f]));
}
function only<T>(xs: T[]): T {
  expect(xs).toHaveLength(1);
  return xs[0] as T;
}

describe("staged", () => {
  it("first commit of a repo (no HEAD): everything is added against the empty tree", async () => {
    const r = await repo();
    r.write("scripts/a.env", "ENGINE=vllm\nMODEL=x\n");
    r.write("README", "hi\n");
    r.stage();
    const u = only(await (await openRepo(r.dir)).units({ mode: "staged" }));
    expect(u.kind).toBe("staged");
    expect(u.id).toBe("staged");
    expect(u.before?.label).toBe("empty");
    expect(u.after.label).toBe("index");
    const f = byPath(u)["scripts/a.env"];
    expect(f).toMatchObject({ status: "added", before: null, after: "ENGINE=vllm\nMODEL=x\n", size: 20, oldPath: null });
    expect(f?.addedLines).toEqual([
      { line: 1, text: "ENGINE=vllm" },
      { line: 2, text: "MODEL=x" },
    ]);
    expect(Object.keys(byPath(u)).sort()).toEqual(["README", "scripts/a.env"]);
    expect(await u.after.list()).toEqual(["README", "scripts/a.env"]);
    expect(await u.before?.list()).toEqual([]);
  });

  it("a modified file with several hunks: added lines numbered in the after version", async () => {
    const r = await repo();
    const lines = Array.from({ length: 20 }, (_, i) => `L${i + 1}`);
    r.write("f.txt", lines.join("\n") + "\n");
    r.stage();
    r.commit("base");
    const next = [...lines];
    next[2] = "L3-changed"; // line 3 replaced
    next.splice(10, 0, "new-a", "new-b"); // inserted as lines 11-12
    next.splice(16, 1); // old L15 removed (no added line)
    next.push("tail"); // last line
    r.write("f.txt", next.join("\n") + "\n");
    r.stage();
    const u = only(await (await openRepo(r.dir)).units({ mode: "staged" }));
    const f = byPath(u)["f.txt"];
    expect(f?.status).toBe("modified");
    expect(f?.before).toBe(lines.join("\n") + "\n");
    expect(f?.addedLines).toEqual([
      { line: 3, text: "L3-changed" },
      { line: 11, text: "new-a" },
      { line: 12, text: "new-b" },
      { line: 22, text: "tail" },
    ]);
    expect(u.before?.label).toBe("HEAD");
  });

  it("symlinks and submodules are skipped with a notice", async () => {
    const r = await repo();
    r.write("real.env", "A=1\n");
    r.stage();
    const base = r.commit("base");
    r.symlink("real.env", "link.env");
    r.stage(["link.env"]);
    r.git("update-index", "--add", "--cacheinfo", `160000,${base},vendor/sub`);
    const u = only(await (await openRepo(r.dir)).units({ mode: "staged" }));
    expect(u.files).toEqual([]);
    expect(u.notices.map((n) => n.path).sort()).toEqual(["link.env", "vendor/sub"]);
    expect(u.notices.find((n) => n.path === "link.env")?.message).toMatch(/symlink/);
    expect(u.notices.find((n) => n.path === "vendor/sub")?.message).toMatch(/submodule/);
    expect(await u.after.list()).toEqual(["real.env"]);
  });

  it("paths with spaces, non-ASCII and a tab keep their names and line numbers", async () => {
    const r = await repo();
    const names = ["scripts/my service.env", "scripts/café-ü.env", "scripts/tab\there.env"];
    for (const n of names) r.write(n, "A=1\nB=2\n");
    r.stage();
    r.commit("base");
    for (const n of names) r.write(n, "A=1\nX=9\nB=2\n");
    r.stage();
    const u = only(await (await openRepo(r.dir)).units({ mode: "staged" }));
    const files = byPath(u);
    expect(Object.keys(files).sort()).toEqual([...names].sort());
    for (const n of names) expect(files[n]?.addedLines).toEqual([{ line: 2, text: "X=9" }]);
    const read = await u.after.read(names);
    expect(read.get("scripts/café-ü.env")?.toString()).toBe("A=1\nX=9\nB=2\n");
  });

  it("CRLF files keep their content; line numbers and texts are right", async () => {
    const r = await repo();
    r.write("w.env", "A=1\r\nB=2\r\n");
    r.stage();
    r.commit("base");
    r.write("w.env", "A=1\r\nB=3\r\nC=4\r\n");
    r.stage();
    const f = byPath(only(await (await openRepo(r.dir)).units({ mode: "staged" })))["w.env"];
    expect(f?.after).toBe("A=1\r\nB=3\r\nC=4\r\n");
    expect(f?.before).toBe("A=1\r\nB=2\r\n");
    expect(f?.addedLines).toEqual([
      { line: 2, text: "B=3" },
      { line: 3, text: "C=4" },
    ]);
  });

  it("binary files: NUL bytes, or git's own binary attribute", async () => {
    const r = await repo();
    r.write(".gitattributes", "*.dat binary\n");
    r.write("blob.bin", Buffer.from([0x41, 0x00, 0x42, 0x0a]));
    r.write("table.dat", "looks=text\n");
    r.write("plain.txt", "text\n");
    r.stage();
    const files = byPath(only(await (await openRepo(r.dir)).units({ mode: "staged" })));
    expect(files["blob.bin"]).toMatchObject({ binary: true, after: null, size: 4, addedLines: [] });
    expect(files["table.dat"]).toMatchObject({ binary: true, after: null, size: 11, addedLines: [] });
    expect(files["plain.txt"]).toMatchObject({ binary: false, after: "text\n" });
  });
});

describe("commit", () => {
  it("deletion: after null, no added lines, size 0", async () => {
    const r = await repo();
    r.write("gone.env", "A=1\n");
    r.write("stay.env", "B=1\n");
    r.stage();
    r.commit("base");
    r.remove("gone.env");
    r.stage();
    const sha = r.commit("delete");
    const u = only(await (await openRepo(r.dir)).units({ mode: "commit", rev: "HEAD" }));
    expect(u.id).toBe(sha);
    expect(u.commit?.sha).toBe(sha);
    expect(u.files).toEqual([
      { path: "gone.env", oldPath: null, status: "deleted", before: "A=1\n", after: null, binary: false, size: 0, addedLines: [] },
    ]);
    expect(await u.after.list()).toEqual(["stay.env"]);
    expect(await u.before?.list()).toEqual(["gone.env", "stay.env"]);
  });

  it("rename: oldPath set, only the changed line added", async () => {
    const r = await repo();
    const body = Array.from({ length: 10 }, (_, i) => `K${i}=v${i}`).join("\n") + "\n";
    r.write("scripts/old.env", body);
    r.stage();
    r.commit("base");
    r.git("mv", "scripts/old.env", "scripts/new name.env");
    r.write("scripts/new name.env", body.replace("K4=v4", "K4=changed"));
    r.stage();
    r.commit("rename");
    const f = only((await (await openRepo(r.dir)).units({ mode: "commit", rev: "HEAD" }))[0]!.files);
    expect(f).toMatchObject({ path: "scripts/new name.env", oldPath: "scripts/old.env", status: "renamed" });
    expect(f.addedLines).toEqual([{ line: 5, text: "K4=changed" }]);
    expect(f.before).toBe(body);
  });

  it("a root commit is compared with the empty tree", async () => {
    const r = await repo();
    r.write("a.txt", "one\n");
    r.stage();
    const sha = r.commit("root");
    const u = only(await (await openRepo(r.dir)).units({ mode: "commit", rev: sha }));
    expect(u.before?.label).toBe("empty");
    expect(u.files.map((f) => [f.path, f.status, f.addedLines.length])).toEqual([["a.txt", "added", 1]]);
  });

  it("a merge commit is compared with its first parent", async () => {
    const r = await repo();
    r.write("base.txt", "b\n");
    r.stage();
    r.commit("base");
    r.git("checkout", "-q", "-b", "feat");
    r.write("feat.txt", "f\n");
    r.stage();
    const feat = r.commit("feat");
    r.git("checkout", "-q", "main");
    r.write("main.txt", "m\n");
    r.stage();
    const mainTip = r.commit("main work");
    r.git("merge", "-q", "--no-ff", "-m", "merge feat", "feat");
    const u = only(await (await openRepo(r.dir)).units({ mode: "commit", rev: "HEAD" }));
    expect(u.commit?.parents).toEqual([mainTip, feat]);
    expect(u.before?.label).toBe(mainTip);
    expect(u.files.map((f) => `${f.status} ${f.path}`)).toEqual(["added feat.txt"]);
  });

  it("trailers are parsed from the message", async () => {
    const r = await repo();
    r.write("a", "1\n");
    r.stage();
    r.commit("Bump the pin\n\nThe card has room.\n\nKvgate-Waive: kv/oversized reason here\nSigned-off-by: A <a@b>\n");
    const c = only(await (await openRepo(r.dir)).units({ mode: "commit", rev: "HEAD" })).commit;
    expect(c?.subject).toBe("Bump the pin");
    expect(c?.author).toBe("Kvgate Test <test@kvgate.invalid>");
    expect(c?.trailers).toEqual([
      { key: "Kvgate-Waive", value: "kv/oversized reason here" },
      { key: "Signed-off-by", value: "A <a@b>" },
    ]);
  });

  it("a bad revision is a GateError naming it", async () => {
    const r = await repo();
    r.write("a", "1\n");
    r.stage();
    r.commit("one");
    const g = await openRepo(r.dir);
    await expect(g.units({ mode: "commit", rev: "no-such-branch" })).rejects.toThrow(/no-such-branch/);
    await expect(g.units({ mode: "commit", rev: "no-such-branch" })).rejects.toBeInstanceOf(GateError);
    await expect(g.units({ mode: "range", range: "nope..HEAD", unit: "commit" })).rejects.toThrow(/"nope" \(in nope\.\.HEAD\)/);
    await expect(g.units({ mode: "range", range: "..", unit: "commit" })).rejects.toThrow(/bad range/);
  });
});

describe("range", () => {
  async function linear(): Promise<{ r: TempRepo; c1: string; c2: string; c3: string }> {
    const r = await repo();
    r.write("a.env", "A=1\n");
    r.stage();
    const c1 = r.commit("c1");
    r.write("a.env", "A=1\nB=2\n");
    r.stage();
    const c2 = r.commit("c2");
    r.write("a.env", "A=1\nB=2\nC=3\n");
    r.write("b.env", "X=1\n");
    r.stage();
    const c3 = r.commit("c3");
    return { r, c1, c2, c3 };
  }

  it("--unit commit: one unit per commit, oldest first; --unit range: one unit from A to B", async () => {
    const { r, c1, c2, c3 } = await linear();
    const g = await openRepo(r.dir);
    const perCommit = await g.units({ mode: "range", range: `${c1}..${c3}`, unit: "commit" });
    expect(perCommit.map((u) => [u.kind, u.id, u.before?.label])).toEqual([
      ["commit", c2, c1],
      ["commit", c3, c2],
    ]);
    expect(perCommit.map((u) => u.files.map((f) => `${f.path}:${f.addedLines.map((l) => l.line).join(",")}`))).toEqual([
      ["a.env:2"],
      ["a.env:3", "b.env:1"],
    ]);
    const whole = only(await g.units({ mode: "range", range: `${c1}..${c3}`, unit: "range" }));
    expect(whole).toMatchObject({ kind: "range", id: `${c1}..${c3}`, commit: null });
    expect(whole.commits.map((c) => c.sha)).toEqual([c2, c3]);
    expect(whole.before?.label).toBe(c1);
    expect(whole.after.label).toBe(c3);
    expect(whole.files.map((f) => `${f.path}:${f.addedLines.map((l) => l.line).join(",")}`)).toEqual(["a.env:2,3", "b.env:1"]);
    expect((await g.commitsInRange(`${c1}..HEAD`)).map((c) => c.subject)).toEqual(["c2", "c3"]);
  });

  it("A...B starts at the merge base", async () => {
    const r = await repo();
    r.write("a", "1\n");
    r.stage();
    const base = r.commit("base");
    r.git("checkout", "-q", "-b", "feat");
    r.write("f", "1\n");
    r.stage();
    const f1 = r.commit("f1");
    r.git("checkout", "-q", "main");
    r.write("m", "1\n");
    r.stage();
    r.commit("m1");
    const g = await openRepo(r.dir);
    expect(await g.mergeBase("main", "feat")).toBe(base);
    const u = only(await g.units({ mode: "range", range: "main...feat", unit: "range" }));
    expect(u.before?.label).toBe(base);
    expect(u.commits.map((c) => c.sha)).toEqual([f1]);
    expect(u.files.map((f) => f.path)).toEqual(["f"]);
  });

  it("a root commit inside a range (an unrelated history merged in)", async () => {
    const r = await repo();
    r.write("main.txt", "m\n");
    r.stage();
    const c1 = r.commit("c1");
    r.git("checkout", "-q", "--orphan", "other");
    r.git("rm", "-q", "-r", "--cached", ".");
    r.remove("main.txt");
    r.write("o.txt", "x\n");
    r.stage();
    const r1 = r.commit("r1");
    r.write("o.txt", "x\ny\n");
    r.stage();
    const r2 = r.commit("r2");
    r.git("checkout", "-q", "main");
    r.git("merge", "-q", "--allow-unrelated-histories", "-m", "merge other", "other");
    const m = r.git("rev-parse", "HEAD").trim();
    const units = await (await openRepo(r.dir)).units({ mode: "range", range: `${c1}..main`, unit: "commit" });
    expect(units.map((u) => u.id)).toEqual([r1, r2, m]);
    const [u1, u2, um] = units;
    expect(u1?.before?.label).toBe("empty");
    expect(u1?.files.map((f) => [f.path, f.status, f.addedLines])).toEqual([["o.txt", "added", [{ line: 1, text: "x" }]]]);
    expect(u2?.files[0]?.addedLines).toEqual([{ line: 2, text: "y" }]);
    expect(um?.before?.label).toBe(c1);
    expect(um?.files.map((f) => `${f.status} ${f.path}`)).toEqual(["added o.txt"]);
  });
});

describe("shallow clones", () => {
  async function origin(): Promise<{ r: TempRepo; shas: string[] }> {
    const r = await repo();
    const shas: string[] = [];
    for (let i = 1; i <= 4; i++) {
      r.write("a.env", `A=${i}\n`);
      r.stage();
      shas.push(r.commit(`c${i}`));
    }
    r.git("tag", "first", shas[0] as string);
    return { r, shas };
  }

  it("a range whose base is missing fails with the fetch-depth hint", async () => {
    const { r, shas } = await origin();
    const clone = r.clone(["--depth", "1"]);
    temps.push(clone);
    const g = await openRepo(clone.dir);
    expect(await g.isShallow()).toBe(true);
    const err = await g.units({ mode: "range", range: `${shas[0]}..HEAD`, unit: "commit" }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GateError);
    expect((err as GateError).message).toContain(shas[0]);
    expect((err as GateError).hint).toMatch(/fetch-depth: 0/);
    expect((err as GateError).hint).toMatch(/git fetch --deepen=<n>/);
  });

  it("a commit whose parent was cut off fails the same way; the base present but history cut too", async () => {
    const { r, shas } = await origin();
    const clone = r.clone(["--depth", "1", "--branch", "main"]);
    temps.push(clone);
    const g = await openRepo(clone.dir);
    await expect(g.units({ mode: "commit", rev: "HEAD" })).rejects.toThrow(/parent of commit .* is missing/);
    clone.git("fetch", "-q", "--depth", "1", "origin", "tag", "first");
    const g2 = await openRepo(clone.dir);
    const err = await g2.units({ mode: "range", range: "first..HEAD", unit: "range" }).catch((e: unknown) => e);
    expect((err as GateError).message).toMatch(/history between first\.\.HEAD is incomplete/);
    expect((err as GateError).hint).toMatch(/fetch-depth: 0/);
    // A full clone of the same history works.
    const full = r.clone();
    temps.push(full);
    const units = await (await openRepo(full.dir)).units({ mode: "range", range: "first..HEAD", unit: "commit" });
    expect(units.map((u) => u.id)).toEqual(shas.slice(1));
  });
});

describe("--repo inside a sub-folder", () => {
  it("lists and reports paths relative to the folder, and nothing outside it", async () => {
    const r = await repo();
    r.write("top.env", "T=1\n");
    r.write("fleet/scripts/a.env", "A=1\n");
    r.write("fleet/kvgate.yaml", "version: 1\n");
    r.stage();
    r.commit("base");
    r.write("top.env", "T=2\n");
    r.write("fleet/scripts/a.env", "A=1\nB=2\n");
    r.stage();
    const g = await openRepo(join(r.dir, "fleet"));
    expect(g.root).toBe(r.dir);
    expect(g.prefix).toBe("fleet/");
    const u = only(await g.units({ mode: "staged" }));
    expect(u.files.map((f) => [f.path, f.addedLines])).toEqual([["scripts/a.env", [{ line: 2, text: "B=2" }]]]);
    expect(await u.after.list()).toEqual(["kvgate.yaml", "scripts/a.env"]);
    expect(await u.before?.list()).toEqual(["kvgate.yaml", "scripts/a.env"]);
    expect((await u.before!.read(["scripts/a.env", "top.env"])).get("scripts/a.env")?.toString()).toBe("A=1\n");
    expect((await u.after.read(["scripts/a.env"])).get("scripts/a.env")?.toString()).toBe("A=1\nB=2\n");
    expect(await g.readConfigAt("HEAD", "kvgate.yaml")).toBe("version: 1\n");
    expect(await g.readConfigAt("HEAD", "missing.yaml")).toBeNull();
    const all = only(await g.units({ mode: "all" }));
    expect(all.files).toEqual([]);
    expect((await treeFilesOf(all)).map((f) => f.path)).toEqual(["kvgate.yaml", "scripts/a.env"]);
  });
});

describe("helpers for later issues", () => {
  it("headSha, revParse, writeTree, gitPath", async () => {
    const r = await repo();
    const g = await openRepo(r.dir);
    expect(await g.headSha()).toBeNull();
    r.write("a", "1\n");
    r.stage();
    expect(await g.writeTree()).toBe(r.git("write-tree").trim());
    const sha = r.commit("one");
    const g2 = await openRepo(r.dir);
    expect(await g2.headSha()).toBe(sha);
    expect(await g2.revParse("main")).toBe(sha);
    expect(await g2.gitPath("hooks")).toBe(join(r.dir, ".git", "hooks"));
    expect(await g2.isShallow()).toBe(false);
  });

  it("every git failure is a GateError", async () => {
    const r = await repo();
    r.write("a", "1\n");
    r.stage();
    r.commit("one");
    const g = await openRepo(r.dir);
    r.remove(".git");
    await expect(g.units({ mode: "staged" })).rejects.toBeInstanceOf(GateError);
    await expect(g.writeTree()).rejects.toBeInstanceOf(GateError);
  });
});

describe("--all", () => {
  it("in a repository: tracked and untracked files, not ignored ones", async () => {
    const r = await repo();
    r.write(".gitignore", "secret.local\n");
    r.write("tracked.env", "A=1\nB=2\n");
    r.stage();
    r.commit("base");
    r.write("untracked.env", "C=3\n");
    r.write("secret.local", "nope\n");
    r.symlink("tracked.env", "link.env");
    const u = only(await (await openTree(r.dir)).units({ mode: "all" }));
    expect(u).toMatchObject({ kind: "all", id: "all", before: null, commit: null });
    const files = await treeFilesOf(u);
    expect(files.map((f) => f.path)).toEqual([".gitignore", "tracked.env", "untracked.env"]);
    expect(u.tree?.paths).toEqual([".gitignore", "tracked.env", "untracked.env"]);
    expect(files.find((f) => f.path === "tracked.env")).toMatchObject({
      status: "added",
      addedLines: [
        { line: 1, text: "A=1" },
        { line: 2, text: "B=2" },
      ],
    });
    expect(u.notices).toEqual([{ path: "link.env", message: expect.stringMatching(/symlink/) }]);
  });
});
