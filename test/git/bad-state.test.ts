// The change model in a bad state: corrupt objects, a locked index, git missing, files that exist
// but cannot be read. Each ends in a GateError that names the thing and the fix, never in "no file".
import { afterEach, describe, expect, it } from "vitest";
import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { openRepo, openTree } from "../../src/git/index.js";
import { readBlobs, parseBatch } from "../../src/git/catfile.js";
import { BatchReader } from "../../src/git/batch.js";
import { gitRunner, spawnFailure } from "../../src/git/exec.js";
import { folderSnapshot } from "../../src/git/snapshots.js";
import { GateError } from "../../src/errors.js";
import { makeFolder, makeRepo, type TempFolder, type TempRepo } from "../helpers/repo.js";

const temps: TempFolder[] = [];
afterEach(async () => {
  await Promise.all(temps.splice(0).map((t) => t.cleanup()));
});
async function repo(): Promise<TempRepo> {
  const r = await makeRepo();
  temps.push(r);
  return r;
}
const IS_ROOT = process.getuid?.() === 0;

function corrupt(r: TempRepo, oid: string): void {
  const path = join(r.dir, ".git", "objects", oid.slice(0, 2), oid.slice(2));
  chmodSync(path, 0o644);
  writeFileSync(path, "not a zlib stream");
}

async function failure(p: Promise<unknown>): Promise<GateError> {
  const err = await p.then(() => null, (e: unknown) => e);
  expect(err).toBeInstanceOf(GateError);
  return err as GateError;
}

/** A repo with a.env committed (oid `old`) and changed in the index (oid `staged`). */
async function twoVersions(): Promise<{ r: TempRepo; old: string; staged: string }> {
  const r = await repo();
  r.write("a.env", "A=1\n");
  r.stage();
  r.commit("one");
  const old = r.git("rev-parse", "HEAD:a.env").trim();
  r.write("a.env", "A=1\nB=2\n");
  r.stage();
  return { r, old, staged: r.git("rev-parse", ":a.env").trim() };
}

const CORRUPT = /^the repository is corrupt: object ([0-9a-f]{40}) for (\S+) cannot be read; run git fsck/;

describe("a corrupt object is never an absent file", () => {
  it("parseBatch tells missing from not-a-blob, and a short answer is an error", () => {
    const out = Buffer.from("aaaa blob 2\nhi\nbbbb missing\ncccc tree 0\n\n");
    expect(parseBatch(out, 3).map((a) => a.kind)).toEqual(["blob", "missing", "other"]);
    expect(() => parseBatch(out, 4)).toThrow(/1 of 4 answers missing/);
    expect(() => parseBatch(Buffer.from("aaaa blob 9\nhi\n"), 1)).toThrow(/truncated/);
  });

  it("one-shot read: an absent path is null; a corrupt object, by id or by path, names the object and the file", async () => {
    const { r, staged } = await twoVersions();
    expect((await readBlobs(r.dir, ["HEAD:nope.env", ":a.env"])).get("HEAD:nope.env")).toBeNull();
    corrupt(r, staged);
    const byId = await failure(readBlobs(r.dir, [staged], new Map([[staged, "a.env"]])));
    expect(byId.message).toMatch(CORRUPT);
    expect(CORRUPT.exec(byId.message)?.slice(1)).toEqual([staged, "a.env"]);
    expect(byId.message).toMatch(/inflate/);
    expect(byId.hint).toMatch(/git fsck/);
    const byPath = await failure(readBlobs(r.dir, [":a.env"]));
    expect(CORRUPT.exec(byPath.message)?.slice(1)).toEqual([staged, "a.env"]);
  });

  it("the shared process: an absent path is null; a corrupt object by id or by path is a GateError", async () => {
    const { r, old } = await twoVersions();
    const head = r.git("rev-parse", "HEAD").trim();
    const reader = new BatchReader(r.dir);
    try {
      expect((await reader.contents([`${head}:nope.env`])).get(`${head}:nope.env`)).toBeNull();
      corrupt(r, old);
      for (const names of [[old], [`${head}:a.env`]]) {
        const err = await failure(reader.contents(names, new Map([[names[0] as string, "a.env"]])));
        expect(CORRUPT.exec(err.message)?.slice(1)).toEqual([old, "a.env"]);
        reader.close();
      }
      expect((await failure(reader.sizes([old]))).message).toMatch(new RegExp(`^the repository is corrupt: object ${old} cannot be read; run git fsck`));
    } finally {
      reader.close();
    }
  });

  it("staged unit: a corrupt staged blob fails the unit instead of reading as no file", async () => {
    const { r, staged } = await twoVersions();
    corrupt(r, staged);
    const g = await openRepo(r.dir);
    const err = await failure(g.units({ mode: "staged" }).then(async ([u]) => u?.after.read(["a.env"])));
    expect(CORRUPT.exec(err.message)?.slice(1)).toEqual([staged, "a.env"]);
  });

  it("range unit: a corrupt blob in the range is a GateError naming the file", async () => {
    const { r, staged } = await twoVersions();
    const first = r.git("rev-parse", "HEAD").trim();
    r.commit("two");
    corrupt(r, staged);
    const g = await openRepo(r.dir);
    const read = (async () => {
      for await (const u of g.unitsInRange(`${first}..HEAD`)) await u.after.read(["a.env"]);
    })();
    expect((await failure(read)).message).toMatch(/corrupt|inflate/);
  });
});

describe("a locked index", () => {
  it("writeTree works while another process holds index.lock, and leaves the index and the lock alone", async () => {
    const r = await repo();
    r.write("a.env", "A=1\n");
    r.stage();
    const want = r.git("write-tree").trim();
    const index = join(r.dir, ".git", "index");
    const before = readFileSync(index);
    writeFileSync(join(r.dir, ".git", "index.lock"), "");
    const g = await openRepo(r.dir);
    expect(await g.writeTree()).toBe(want);
    expect(readFileSync(index).equals(before)).toBe(true);
    expect(statSync(join(r.dir, ".git", "index.lock")).size).toBe(0);
    expect(await (await g.units({ mode: "staged" }))[0]?.after.read(["a.env"])).toEqual(new Map([["a.env", Buffer.from("A=1\n")]]));
  });

  it("writeTree keys the index GIT_INDEX_FILE names (a hook's temporary index), and an unborn index is the empty tree", async () => {
    const r = await repo();
    const g = await openRepo(r.dir);
    expect(await g.writeTree()).toBe("4b825dc642cb6eb9a060e54bf8d69288fbee4904");
    r.write("a.env", "A=1\n");
    r.write("b.env", "B=1\n");
    r.stage(["a.env"]);
    const alt = join(r.dir, ".git", "alt-index");
    r.git("read-tree", "--empty");
    const env = { ...process.env, GIT_INDEX_FILE: alt };
    const { execFileSync } = await import("node:child_process");
    execFileSync("git", ["add", "b.env"], { cwd: r.dir, env });
    const wantAlt = execFileSync("git", ["write-tree"], { cwd: r.dir, env, encoding: "utf8" }).trim();
    const saved = process.env.GIT_INDEX_FILE;
    process.env.GIT_INDEX_FILE = alt;
    try {
      expect(await (await openRepo(r.dir)).writeTree()).toBe(wantAlt);
    } finally {
      if (saved === undefined) delete process.env.GIT_INDEX_FILE;
      else process.env.GIT_INDEX_FILE = saved;
    }
    expect(wantAlt).not.toBe(r.git("write-tree").trim());
  });
});

describe("git missing", () => {
  it("spawnFailure: ENOENT is 'kvgate needs git' with the fix, unless the folder is what is missing", () => {
    const enoent = Object.assign(new Error("spawn git ENOENT"), { code: "ENOENT" });
    const missing = spawnFailure(process.cwd(), enoent);
    expect(missing.message).toBe("kvgate needs git, and git is not on PATH");
    expect(missing.hint).toBe("install git, or put the folder that holds it on PATH");
    expect(spawnFailure("/no/such/folder", enoent).message).toBe("cannot run git: the folder /no/such/folder does not exist");
  });

  it("every door to git (simple-git, one-shot cat-file, the shared process, git log) says git is needed", async () => {
    const r = await repo();
    r.write("a.env", "A=1\n");
    r.stage();
    r.commit("one");
    const g = await openRepo(r.dir);
    const saved = process.env.PATH;
    const empty = join(r.dir, ".empty-bin");
    mkdirSync(empty);
    process.env.PATH = empty;
    try {
      const doors: (() => Promise<unknown>)[] = [
        () => gitRunner(r.dir).run(["status"]),
        () => gitRunner(r.dir).tryRun(["rev-parse", "--verify", "-q", "nope"]),
        () => readBlobs(r.dir, ["HEAD:a.env"]),
        () => new BatchReader(r.dir).contents(["HEAD:a.env"]),
        () => g.units({ mode: "range", range: "HEAD~0..HEAD", unit: "commit" }),
        () => openRepo(r.dir),
      ];
      for (const door of doors) {
        const err = await failure(door());
        expect(err.message).toMatch(/^kvgate needs git/);
        expect(err.hint).toMatch(/install git/);
      }
    } finally {
      process.env.PATH = saved;
    }
  });
});

describe("files on disk that exist but cannot be read", () => {
  it("an absent file is null; a folder where a file should be is a GateError naming it", async () => {
    const f = await makeFolder();
    temps.push(f);
    f.write("scripts/a.env", "A=1\n");
    mkdirSync(join(f.dir, "kvgate.yaml"));
    const snap = folderSnapshot(f.dir);
    expect(await snap.read([".kvgate.yaml", "scripts/a.env/x"])).toEqual(new Map([[".kvgate.yaml", null], ["scripts/a.env/x", null]]));
    const err = await failure(snap.read(["kvgate.yaml"]));
    expect(err.message).toBe("kvgate.yaml cannot be read: EISDIR (it is a folder)");
  });

  it.skipIf(IS_ROOT)("chmod 000: the env file and the folder are GateErrors naming them (root reads through chmod; e2e covers it as nobody)", async () => {
    const f = await makeFolder();
    temps.push(f);
    f.write("scripts/a.env", "A=1\n");
    f.write("locked/b.env", "B=1\n");
    chmodSync(join(f.dir, "scripts/a.env"), 0o000);
    const err = await failure(folderSnapshot(f.dir).read(["scripts/a.env"]));
    expect(err.message).toBe("scripts/a.env cannot be read: EACCES (permission denied)");
    expect(err.hint).toMatch(/chmod a\+r scripts\/a\.env/);
    chmodSync(join(f.dir, "locked"), 0o000);
    try {
      expect((await failure((await openTree(f.dir)).units({ mode: "all" }))).message).toBe("the folder locked cannot be listed: EACCES (permission denied)");
    } finally {
      chmodSync(join(f.dir, "locked"), 0o755);
      chmodSync(join(f.dir, "scripts/a.env"), 0o644);
    }
  });
});
