// The change model in a bad state: corrupt objects, a locked index, git missing, files that exist
// but cannot be read. Each ends in a GateError that names the thing and the fix, never in "no file".
import { afterEach, describe, expect, it } from "vitest";
import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { openRepo, openTree } from "../../src/git/index.js";
import { BlobReader } from "../../src/git/blobs.js";
import { gitRunner, remoteGitRunner, spawnFailure } from "../../src/git/exec.js";
import { folderSnapshot } from "../../src/git/disk.js";
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
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
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
  it("every snapshot read by path: an absent path is null; a corrupt or deleted object names the object and the file", async () => {
    const { r, old, staged } = await twoVersions();
    const g = await openRepo(r.dir);
    for (const name of ["index", "HEAD"]) expect((await (await g.snapshot(name)).read(["nope.env"])).get("nope.env")).toBeNull();
    corrupt(r, staged);
    const err = await failure((await g.snapshot("index")).read(["a.env"]));
    expect(CORRUPT.exec(err.message)?.slice(1)).toEqual([staged, "a.env"]);
    expect(err.hint).toMatch(/git fsck/);
    // Deleted outright (what a broken partial clone looks like): cat-file says "missing", as for an
    // absent path, but the path was found in the tree first, so it cannot be taken for "no file".
    r.remove(`.git/objects/${old.slice(0, 2)}/${old.slice(2)}`);
    for (const read of [async () => (await g.snapshot("HEAD")).read(["a.env"]), () => g.units({ mode: "staged" })]) {
      const err = await failure(read());
      expect(CORRUPT.exec(err.message)?.slice(1)).toEqual([old, "a.env"]);
    }
    expect((await failure(g.readConfigAt("HEAD", "a.env"))).message).toMatch(CORRUPT);
  });

  it("the blob reader: a corrupt object by id is a GateError naming the file, sizes too", async () => {
    const { r, old } = await twoVersions();
    const reader = new BlobReader(r.dir);
    try {
      corrupt(r, old);
      const err = await failure(reader.contents([old], new Map([[old, "a.env"]])));
      expect(CORRUPT.exec(err.message)?.slice(1)).toEqual([old, "a.env"]);
      reader.close();
      expect((await failure(reader.sizes([old]))).message).toMatch(
        new RegExp(`^the repository is corrupt: object ${old} cannot be read; run git fsck`),
      );
    } finally {
      reader.close();
    }
  });

  it("a missing object in `git diff` or `git log` names the object, the file and the fix", async () => {
    const r = await repo();
    r.write("scripts/a.env", "A=1\n");
    r.write("b.env", "B=1\n");
    r.stage();
    const first = r.commit("one");
    r.write("scripts/a.env", "A=1\nA2=2\n");
    r.stage();
    const second = r.commit("two");
    const oid = r.git("rev-parse", "HEAD:scripts/a.env").trim();
    r.remove(`.git/objects/${oid.slice(0, 2)}/${oid.slice(2)}`);
    const g = await openRepo(r.dir);
    const runs: [string, () => Promise<unknown>][] = [
      ["commit", () => g.units({ mode: "commit", rev: second })],
      ["range", () => g.units({ mode: "range", range: `${first}..${second}`, unit: "range" })],
      ["log", () => g.units({ mode: "range", range: `${first}..${second}`, unit: "commit" })],
      [
        "audit",
        async () => {
          for await (const c of g.addedLinesInRange(`${first}..${second}`)) void c;
        },
      ],
    ];
    for (const [what, run] of runs) {
      const err = await failure(run());
      expect([what, CORRUPT.exec(err.message)?.slice(1)]).toEqual([what, [oid, "scripts/a.env"]]);
      expect(err.hint).toMatch(/git fsck/);
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

  it("every door to git (the local runner, simple-git, the blob reader, git diff, git log) says git is needed", async () => {
    const r = await repo();
    r.write("a.env", "A=1\n");
    r.stage();
    r.commit("one");
    const g = await openRepo(r.dir);
    const blob = r.git("rev-parse", "HEAD:a.env").trim();
    const saved = process.env.PATH;
    const empty = join(r.dir, ".empty-bin");
    mkdirSync(empty);
    process.env.PATH = empty;
    try {
      const doors: (() => Promise<unknown>)[] = [
        () => gitRunner(r.dir).run(["status"]),
        () => gitRunner(r.dir).tryRun(["rev-parse", "--verify", "-q", "nope"]),
        () => remoteGitRunner(r.dir).run(["status"]),
        () => remoteGitRunner(r.dir).tryRun(["rev-parse", "--verify", "-q", "nope"]),
        () => new BlobReader(r.dir).contents([blob]),
        () => g.units({ mode: "staged" }),
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
    expect(await snap.read([".kvgate.yaml", "scripts/a.env/x"])).toEqual(
      new Map([
        [".kvgate.yaml", null],
        ["scripts/a.env/x", null],
      ]),
    );
    const err = await failure(snap.read(["kvgate.yaml"]));
    expect(err.message).toBe("kvgate.yaml cannot be read: EISDIR (it is a folder)");
  });

  it.skipIf(IS_ROOT)(
    "chmod 000: the env file and the folder are GateErrors naming them (root reads through chmod; e2e covers it as nobody)",
    async () => {
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
        expect((await failure((await openTree(f.dir)).units({ mode: "all" }))).message).toBe(
          "the folder locked cannot be listed: EACCES (permission denied)",
        );
      } finally {
        chmodSync(join(f.dir, "locked"), 0o755);
        chmodSync(join(f.dir, "scripts/a.env"), 0o644);
      }
    },
  );
});
