// The streaming range path (one `git log`, one cat-file) against one commit unit per commit (one
// `git diff` each, listings by ls-tree), on a history holding every awkward case, plus its process
// budget and the log parser on its own.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { openRepo, type Repo } from "../../src/git/index.js";
import type { ChangedFile, DeployUnit } from "../../src/git/index.js";
import { DiffParser, LOG_ARGS, streamLog, type LogCommit } from "../../src/git/diffstream.js";
import { BlobReader } from "../../src/git/blobs.js";
import { applyRaw, comparePaths, listingFromEntries } from "../../src/git/listing.js";
import { makeRepo, type TempRepo } from "../helpers/repo.js";
import { keywordSieve } from "../../src/secrets/scan.js";
import { builtinDetectors } from "../../src/rules/detectors.js";

/** The range one commit unit at a time: every commit on its own diff and listings, no stream. */
async function perCommitUnits(g: Repo, range: string): Promise<DeployUnit[]> {
  const units: DeployUnit[] = [];
  for (const c of await g.commitsInRange(range)) units.push(...(await g.units({ mode: "commit", rev: c.sha })));
  return units;
}

let r: TempRepo;
let base: string;
const NUL_SENTINEL = Buffer.concat([
  Buffer.from("A=1\n"),
  Buffer.from("\x01kvgate-commit\x02"),
  Buffer.from("f".repeat(40)),
  Buffer.from([0]),
  Buffer.from("\n"),
]);

beforeAll(async () => {
  r = await makeRepo();
  r.write("keep.env", "K=1\n");
  r.write("old name.env", "R1=1\nR2=2\nR3=3\nR4=4\n");
  r.write("was-file", "x\n");
  r.write("sub/deep.env", "D=1\n");
  r.write("sub/move-out.env", "M1=1\nM2=2\nM3=3\n");
  r.stage();
  base = r.commit("base");
  // Renames (one with a change), deletion, non-ASCII, spaces, a tab, CRLF, no final newline.
  r.git("mv", "old name.env", "new name.env");
  r.write("new name.env", "R1=1\nR2=changed\nR3=3\nR4=4\n");
  r.remove("keep.env");
  r.write("scripts/café-ü.env", "É=1\n");
  r.write("scripts/tab\there.env", "T=1\n");
  r.write("crlf.env", "A=1\r\nB=2\r\n");
  r.write("nonl.env", "A=1\nB=2");
  r.stage();
  r.commit("renames and names\n\nKvgate-Waive: kv/oversized because\nSigned-off-by: A <a@b>\n");
  // Binaries: NUL bytes, the binary attribute, and a forced text diff of NUL content that holds the sentinel.
  r.write(".gitattributes", "*.dat binary\nforced.txt diff\n");
  r.write("blob.bin", Buffer.from([0x41, 0x00, 0x42, 0x0a]));
  r.write("table.dat", "looks=text\n");
  r.write("forced.txt", NUL_SENTINEL);
  r.write("crlf.env", "A=1\r\nB=3\r\nC=4\r\n");
  r.stage();
  r.commit("binaries");
  // Symlinks: added, a file turned into one, one turned back into a file; a mode change; a submodule.
  r.symlink("crlf.env", "link.env");
  r.remove("was-file");
  r.symlink("crlf.env", "was-file");
  r.git("update-index", "--add", "--cacheinfo", `160000,${base},vendor/sub`);
  r.stage(["link.env", "was-file"]);
  r.commit("links");
  r.remove("was-file");
  r.write("was-file", "now a file\nline 2\n");
  r.git("update-index", "--chmod=+x", "nonl.env");
  r.stage(["was-file"]);
  r.commit("back to a file");
  r.commit("empty", { allowEmpty: true });
  // A side branch merged with --no-ff, and an unrelated history (a root commit) merged in.
  r.git("checkout", "-q", "-b", "feat");
  r.write("feat.env", "F=1\n");
  r.stage();
  r.commit("feat 1");
  r.write("feat.env", "F=1\nF2=2\n");
  r.write("sub/deep.env", "D=1\nD2=2\n");
  r.stage();
  r.commit("feat 2");
  r.git("checkout", "-q", "main");
  r.write("main.env", "M=1\n");
  r.git("mv", "sub/move-out.env", "moved-out.env");
  r.stage();
  r.commit("main work, and a rename out of sub/");
  r.git("merge", "-q", "--no-ff", "-m", "merge feat", "feat");
  r.git("checkout", "-q", "--orphan", "other");
  r.git("rm", "-q", "-r", "--cached", ".");
  for (const p of r.git("ls-files", "--others", "--exclude-standard").split("\n").filter(Boolean)) r.remove(p);
  r.remove("link.env");
  r.write("o.txt", "x\n");
  r.stage();
  r.commit("orphan root");
  r.git("checkout", "-q", "-f", "main");
  r.git("merge", "-q", "--allow-unrelated-histories", "-m", "merge other", "other");
  r.git("mv", "moved-out.env", "sub/moved-back.env");
  r.write("sub/new.env", "N=1\n");
  r.stage();
  r.commit("a rename into sub/");
});
afterAll(async () => {
  await r?.cleanup();
});

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

/** Everything a unit says, snapshots included (every listed path read on both sides). */
async function dump(u: DeployUnit): Promise<unknown> {
  const side = async (s: DeployUnit["before"]) => {
    if (!s) return null;
    const paths = await s.list();
    const blobs = await s.read([...paths, "no-such-file"]);
    return { label: s.label, paths, blobs: [...blobs].map(([p, b]) => [p, b?.toString("base64") ?? null]) };
  };
  return {
    kind: u.kind,
    id: u.id,
    commit: u.commit,
    commits: u.commits,
    files: u.files,
    notices: u.notices,
    after: await side(u.after),
    before: await side(u.before),
  };
}

/** A file as the audit's light view gives it: no contents, and a size only where a finding shows one (binary, streamed). */
const light = (f: ChangedFile) => ({ ...f, before: null, after: null, size: f.after === null ? f.size : null });

describe.each([
  ["the toplevel", ""],
  ["a sub-folder", "sub"],
])("streaming range units at %s equal the per-commit path", (_name, sub) => {
  it("units, snapshots and reads, commit by commit", async () => {
    const g = await openRepo(join(r.dir, sub));
    const range = `${base}..main`;
    const old = await perCommitUnits(g, range);
    const streamed = await g.units({ mode: "range", range, unit: "commit" });
    expect(streamed.map((u) => u.commit?.subject)).toEqual(old.map((u) => u.commit?.subject));
    expect(streamed).toHaveLength(12);
    for (let i = 0; i < old.length; i++) expect(await dump(streamed[i]!)).toEqual(await dump(old[i]!));
    if (sub === "") {
      // The cases are really there.
      const statuses = new Set(old.flatMap((u) => u.files.map((f) => f.status)));
      expect([...statuses].sort()).toEqual(["added", "deleted", "modified", "renamed", "typechange"]);
      expect(old.some((u) => u.files.some((f) => f.binary))).toBe(true);
      expect(old.some((u) => u.notices.some((n) => /symlink/.test(n.message)))).toBe(true);
      expect(old.some((u) => u.notices.some((n) => /submodule/.test(n.message)))).toBe(true);
      expect(old.filter((u) => u.before?.label === "empty")).toHaveLength(1);
      expect(old.find((u) => u.commit?.subject === "renames and names")?.commit?.trailers).toHaveLength(2);
    } else {
      const files = old.flatMap((u) => u.files.map((f) => `${f.status} ${f.path}`));
      expect(files).toContain("added moved-back.env"); // renamed in from outside: all lines added
      expect(files).toContain("deleted move-out.env");
    }
  });

  it("addedLinesInRange: the same files without contents or text files' sizes, added lines kept", async () => {
    const g = await openRepo(join(r.dir, sub));
    const range = `${base}..main`;
    const old = await perCommitUnits(g, range);
    const got = await collect(g.addedLinesInRange(range));
    expect(got.map((c) => c.commit)).toEqual(old.map((u) => u.commit));
    expect(got.map((c) => c.notices)).toEqual(old.map((u) => u.notices));
    for (let i = 0; i < old.length; i++) expect(got[i]!.files).toEqual(old[i]!.files.map(light));
    if (sub === "") {
      const files = got.flatMap((c) => c.files);
      expect(files.find((f) => f.path === "crlf.env" && f.status === "added")).toMatchObject({
        size: null,
        addedLines: [
          { line: 1, text: "A=1" },
          { line: 2, text: "B=2" },
        ],
      });
      // A binary file's size is still looked up: secret/skipped shows it.
      const binaries = files.filter((f) => f.binary && f.status !== "deleted");
      expect(binaries.length).toBeGreaterThan(0);
      for (const f of binaries) expect(f.size).toBeGreaterThan(0);
    }
  });
});

describe("snapshots of streamed units", () => {
  it("list in any order (all at once, newest first) and still match ls-tree", async () => {
    const g = await openRepo(r.dir);
    const units = await g.units({ mode: "range", range: `${base}..main`, unit: "commit" });
    const lsTree = (sha: string) =>
      r
        .git("ls-tree", "-r", "-z", sha)
        .split("\0")
        .filter(Boolean)
        .filter((l) => l.startsWith("100"))
        .map((l) => l.slice(l.indexOf("\t") + 1));
    const all = await Promise.all(units.map((u) => u.after.list()));
    all.forEach((paths, i) => expect(paths).toEqual(lsTree(units[i]!.id)));
    for (const u of [...units].reverse())
      expect(await u.before!.list()).toEqual(u.before!.label === "empty" ? [] : lsTree(u.before!.label));
  });

  it("a read before any listing finds the blob through the derived listing", async () => {
    const g = await openRepo(r.dir);
    const units = await collect(g.unitsInRange(`${base}..main`));
    const last = units[units.length - 1]!;
    const read = await last.after.read(["sub/new.env", "scripts/café-ü.env", "nope"]);
    expect(read.get("sub/new.env")?.toString()).toBe("N=1\n");
    expect(read.get("scripts/café-ü.env")?.toString()).toBe("É=1\n");
    expect(read.get("nope")).toBeNull();
  });
});

describe("the process budget of a range", () => {
  it("one log, one cat-file and one ls-tree however many commits, env files read on both sides", async () => {
    const t = await makeRepo();
    try {
      t.write("scripts/a.env", "A=0\n");
      t.stage();
      const first = t.commit("c0");
      for (let i = 1; i <= 30; i++) {
        t.write(`scripts/s${i % 3}.env`, `A=${i}\n`);
        t.write(`big/f${i}.txt`, "y\n".repeat(i));
        t.stage();
        t.commit(`c${i}`);
      }
      const trace = join(tmpdir(), `kvgate-range-trace-${process.pid}-${Date.now()}.log`);
      process.env.GIT_TRACE = trace;
      let units: DeployUnit[];
      let commits: number;
      try {
        const g = await openRepo(t.dir);
        units = await g.units({ mode: "range", range: `${first}..HEAD`, unit: "commit" });
        for (const u of units) {
          for (const s of [u.after, u.before!]) {
            const envs = (await s.list()).filter((p) => p.endsWith(".env"));
            await s.read(["kvgate.yaml", ...envs]);
          }
        }
        commits = (await collect(g.addedLinesInRange(`${first}..HEAD`))).length;
      } finally {
        delete process.env.GIT_TRACE;
      }
      const commands = readFileSync(trace, "utf8")
        .split("\n")
        .flatMap((l) => /trace: built-in: git (\S+)/.exec(l)?.slice(1) ?? []);
      rmSync(trace, { force: true });
      expect(units).toHaveLength(30);
      expect(commits).toBe(30);
      // open (rev-parse), A and B of each range (rev-parse x2, twice), a log per walk, the shared cat-file, the base's ls-tree.
      expect(commands.sort()).toEqual([
        "cat-file",
        "log",
        "log",
        "ls-tree",
        "rev-parse",
        "rev-parse",
        "rev-parse",
        "rev-parse",
        "rev-parse",
      ]);
    } finally {
      await t.cleanup();
    }
  });
});

describe("DiffParser on a log", () => {
  it("gives the same commits fed a byte at a time as fed whole; crafted content cannot fake a commit", async () => {
    const whole: Buffer[] = [];
    const { spawnSync } = await import("node:child_process");
    const out = spawnSync("git", ["-c", "core.quotePath=false", ...LOG_ARGS, `${base}..main`, "--"], { cwd: r.dir }).stdout as Buffer;
    whole.push(out);
    const once = new DiffParser("log");
    const a = [...once.feed(out), ...once.end()] as LogCommit[];
    const bytewise = new DiffParser("log");
    const b: ReturnType<DiffParser["end"]> = [];
    for (let i = 0; i < out.length; i++) b.push(...bytewise.feed(out.subarray(i, i + 1)));
    b.push(...bytewise.end());
    expect(b).toEqual(a);
    expect(a.map((c) => c.info.subject)).toHaveLength(12);
    const streamed = [];
    for await (const c of streamLog(r.dir, [`${base}..main`])) streamed.push(c);
    expect(streamed).toEqual(a);
    // The forced text diff printed the sentinel line (after a "+"), and it stayed in its commit.
    const binaries = a.find((c) => c.info.subject === "binaries")!;
    expect(binaries.patch).toContain("+\x01kvgate-commit\x02");
    expect(binaries.raw.map((e) => e.path).sort()).toEqual([".gitattributes", "blob.bin", "crlf.env", "forced.txt", "table.dat"]);
  });

  it("gives the same commits, with and without the secret scan's sieve, in chunks of any size as whole", async () => {
    const { spawnSync } = await import("node:child_process");
    const out = spawnSync("git", ["-c", "core.quotePath=false", ...LOG_ARGS, `${base}..main`, "--"], { cwd: r.dir }).stdout as Buffer;
    const sieve = keywordSieve(builtinDetectors());
    for (const s of [undefined, sieve]) {
      const whole = new DiffParser("log", s);
      const a = [...whole.feed(out), ...whole.end()] as LogCommit[];
      expect(a).toHaveLength(12);
      // Chunk sizes from 1 byte to 4 KiB (git writes a pipe 4 KiB at a time), cutting lines, NUL-ended
      // records and headers anywhere: a piece left over is finished from the next chunk's head.
      for (const sizes of [[1, 2, 3, 5, 8, 13], [97, 41, 4096, 7], [4096], [250, 1, 1]]) {
        const p = new DiffParser("log", s);
        const b: ReturnType<DiffParser["end"]> = [];
        for (let at = 0, k = 0; at < out.length; k++) {
          const n = sizes[k % sizes.length] as number;
          b.push(...p.feed(out.subarray(at, at + n)));
          at += n;
        }
        b.push(...p.end());
        expect(b, `chunks of ${sizes.join(", ")}${s ? ", sieved" : ""}`).toEqual(a);
      }
    }
  });

  it("a failing git log is a GateError with a hint", async () => {
    const g = await openRepo(r.dir);
    const err = await collect(streamLog(r.dir, ["no-such-rev..main"])).catch((e: unknown) => e);
    expect((err as Error).name).toBe("GateError");
    expect((err as { hint?: string }).hint).toMatch(/git log --raw -p/);
    await expect(collect(g.addedLinesInRange("nope..main"))).rejects.toThrow(/"nope"/);
  });
});

describe("the one blob reader", () => {
  it("contents and sizes by id in one process; a tree is null; an unknown id is corruption; it restarts after idling", async () => {
    const reader = new BlobReader(r.dir);
    const id = (rev: string) => r.git("rev-parse", rev).trim();
    const blob = id("main:sub/new.env");
    const tree = id("main^{tree}");
    const ids = [blob, id("main:scripts/café-ü.env"), tree, id("main:scripts/tab\there.env")];
    const got = await reader.contents(ids);
    expect(ids.map((n) => got.get(n)?.toString() ?? null)).toEqual(["N=1\n", "É=1\n", null, "T=1\n"]);
    reader.close();
    const sizes = await reader.sizes([blob, tree]);
    expect([...sizes.values()]).toEqual([4, null]);
    const unknown = "1".repeat(40);
    const err = (await reader.contents([unknown], new Map([[unknown, "scripts/x.env"]])).then(
      () => null,
      (e: unknown) => e,
    )) as Error;
    expect(err.message).toBe(`the repository is corrupt: object ${unknown} for scripts/x.env cannot be read; run git fsck`);
    // Paths are never object names: a snapshot resolves them to ids first.
    await expect(reader.contents(["main:sub/new.env"])).rejects.toThrow(/by object id/);
    await new Promise((res) => setTimeout(res, 400)); // past the idle spell: the process ended
    expect((await reader.contents([blob])).get(blob)?.toString()).toBe("N=1\n");
    reader.close();
  });

  it("a corrupt repository is a GateError with a hint, not a short answer", async () => {
    const t = await makeRepo();
    try {
      t.write("a.env", "A=1\n");
      t.stage();
      const first = t.commit("one");
      t.write("a.env", "A=1\nB=2\n");
      t.stage();
      t.commit("two");
      const oid = t.git("rev-parse", "HEAD:a.env").trim();
      t.remove(`.git/objects/${oid.slice(0, 2)}/${oid.slice(2)}`);
      const g = await openRepo(t.dir);
      for (const run of [
        () => g.units({ mode: "range", range: `${first}..HEAD`, unit: "commit" }),
        () => collect(g.addedLinesInRange(`${first}..HEAD`)),
      ]) {
        const err = await run().catch((e: unknown) => e);
        expect((err as Error).name).toBe("GateError");
        expect((err as { hint?: string }).hint).toBeTruthy();
      }
    } finally {
      await t.cleanup();
    }
  });
});

describe("listings", () => {
  it("git's byte order, and a raw diff applied to a listing", () => {
    expect(["b", "a/x", "a-b", "\u{1F600}", "\uE000", "a"].sort(comparePaths)).toEqual(["a", "a-b", "a/x", "b", "\uE000", "\u{1F600}"]);
    const z = "0".repeat(40);
    const o = "a".repeat(40);
    const start = listingFromEntries(
      new Map([
        ["a", { mode: "100644", oid: o }],
        ["c", { mode: "120000", oid: o }],
        ["d/e", { mode: "100644", oid: o }],
      ]),
    );
    const next = applyRaw(start, [
      { oldMode: "100644", newMode: "100644", oldOid: o, newOid: o, status: "R", oldPath: "a", path: "b" },
      { oldMode: "120000", newMode: "100644", oldOid: o, newOid: o, status: "T", oldPath: "c", path: "c" },
      { oldMode: "100644", newMode: "000000", oldOid: o, newOid: z, status: "D", oldPath: "d/e", path: "d/e" },
      { oldMode: "000000", newMode: "160000", oldOid: z, newOid: o, status: "A", oldPath: "m", path: "m" },
    ]);
    expect(next.entries.map((e) => `${e.mode} ${e.path}`)).toEqual(["100644 b", "100644 c", "160000 m"]);
    expect(next.files).toEqual(["b", "c"]);
    expect(start.files).toEqual(["a", "d/e"]);
  });
});
