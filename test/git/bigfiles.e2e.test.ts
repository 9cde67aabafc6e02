// Issue 13 item 5: git diffs no blob above UNDIFFED_ABOVE (its diff of a big file holds it all in
// memory); what git then calls binary is settled (src/git/bigfiles.ts). Each case is a real repository
// and reads as the change model reads it today for a file of that kind: a big added text file streams
// every line, a binary one (by content or .gitattributes) is binary, and a big modified or renamed
// file still gives only its added lines (from git's patch; neither version is read into memory).
import { afterEach, describe, expect, it } from "vitest";
import { openRepo } from "../../src/git/index.js";
import type { ChangedFile, DeployUnit, Selection } from "../../src/git/index.js";
import { UNDIFFED_ABOVE } from "../../src/git/diffstream.js";
import { readSettledDiff } from "../../src/git/bigfiles.js";
import { BlobReader } from "../../src/git/blobs.js";
import { makeRepo, type TempRepo } from "../helpers/repo.js";
import { chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { GateError } from "../../src/errors.js";

const temps: TempRepo[] = [];
async function repo(): Promise<TempRepo> {
  const r = await makeRepo();
  temps.push(r);
  r.write("README.md", "fleet\n");
  r.stage();
  r.commit("init");
  return r;
}
afterEach(async () => {
  await Promise.all(temps.splice(0).map((t) => t.cleanup()));
});

const row = (i: number): string => `# row ${i}: seat card ledger pool setting=${i % 977}`;
/** Lines enough for a file a quarter over UNDIFFED_ABOVE. */
const LINES = Math.ceil((UNDIFFED_ABOVE * 1.25) / row(100000).length);
function bigText(lines = LINES, eol = "\n", last = eol): string {
  return Array.from({ length: lines }, (_, i) => row(i + 1)).join(eol) + last;
}

async function fileIn(r: TempRepo, path: string, selection: Selection = { mode: "staged" }): Promise<ChangedFile> {
  const units: DeployUnit[] = await (await openRepo(r.dir)).units(selection);
  const f = units[0]?.files.find((x) => x.path === path);
  if (!f) throw new Error(`${path} not in the change`);
  return f;
}

/** A streamed file's lines, read whole (only in tests: the scan reads them through a sieve). */
function streamed(f: ChangedFile): string[] {
  expect(f.streamedLines).toBeTypeOf("function");
  return [...(f.streamedLines?.() ?? [])].map((l) => `${l.line}:${l.text}`);
}

describe("a big added text file: its blob streamed, every line added", () => {
  it.each([
    ["LF, newline at the end", "\n", "\n"],
    ["CRLF (CR dropped as for any file)", "\r\n", "\r\n"],
    ["no newline at the end", "\n", ""],
  ])("%s", async (_, eol, last) => {
    const r = await repo();
    const text = bigText(LINES, eol, last);
    expect(Buffer.byteLength(text)).toBeGreaterThan(UNDIFFED_ABOVE);
    r.write("data/dump.txt", text);
    r.stage();
    const f = await fileIn(r, "data/dump.txt");
    expect(f).toMatchObject({ status: "added", binary: false, size: Buffer.byteLength(text), before: null, after: null, addedLines: [] });
    const lines = streamed(f);
    expect(lines).toHaveLength(LINES);
    expect(lines[0]).toBe(`1:${row(1)}`);
    expect(lines[LINES - 1]).toBe(`${LINES}:${row(LINES)}`);
    // Read twice, read alike: each call starts from the beginning.
    expect(streamed(f)).toEqual(lines);
  });

  it("in a commit (--commit) as in the index", async () => {
    const r = await repo();
    r.write("data/dump.txt", bigText());
    r.stage();
    r.commit("dump");
    const f = await fileIn(r, "data/dump.txt", { mode: "commit", rev: "HEAD" });
    expect(f).toMatchObject({ status: "added", binary: false, after: null });
    expect(streamed(f)).toHaveLength(LINES);
  });

  it("next to a small deleted file (no rename it could be): streamed, the deletion as it is", async () => {
    const r = await repo();
    r.write("old.txt", "gone\n");
    r.stage();
    r.commit("old");
    r.remove("old.txt");
    r.write("data/dump.txt", bigText());
    r.stage();
    const f = await fileIn(r, "data/dump.txt");
    expect(f.status).toBe("added");
    expect(streamed(f)).toHaveLength(LINES);
    expect(await fileIn(r, "old.txt")).toMatchObject({ status: "deleted" });
  });
});

describe("big files git calls binary stay binary", () => {
  it("a NUL in the first 8000 bytes (git's test): binary, its size, nothing streamed or read", async () => {
    const r = await repo();
    const bytes = Buffer.concat([Buffer.from("PK\0\x03header"), Buffer.alloc(UNDIFFED_ABOVE + 10, 0x41)]);
    r.write("model.bin", bytes);
    r.stage();
    const f = await fileIn(r, "model.bin");
    expect(f).toMatchObject({ status: "added", binary: true, size: bytes.length, after: null, addedLines: [] });
    expect(f.streamedLines).toBeUndefined();
  });

  it("a NUL only past the first 8000 bytes: text to git, so streamed", async () => {
    const r = await repo();
    const text = bigText().replace(row(500), `${row(500)}\0`);
    r.write("data/dump.txt", text);
    r.stage();
    const f = await fileIn(r, "data/dump.txt");
    expect(f.binary).toBe(false);
    expect(streamed(f)[499]).toBe(`500:${row(500)}\0`);
  });

  it.each([
    ["-diff", "*.txt -diff\n"],
    ["the binary macro", "*.txt binary\n"],
  ])(".gitattributes %s: binary whatever the content", async (_, attrs) => {
    const r = await repo();
    r.write(".gitattributes", attrs);
    r.write("data/dump.txt", bigText());
    r.stage();
    const f = await fileIn(r, "data/dump.txt");
    expect(f).toMatchObject({ binary: true, addedLines: [] });
    expect(f.streamedLines).toBeUndefined();
  });
});

describe("a big file that is not simply added: git's whole diff, as before", () => {
  it("modified by one line: that line only, numbered in the new version; neither version read into memory", async () => {
    const r = await repo();
    r.write("data/dump.txt", bigText());
    r.stage();
    r.commit("dump");
    r.write("data/dump.txt", bigText().replace(`${row(1234)}\n`, `${row(1234)} changed\n`));
    r.stage();
    const f = await fileIn(r, "data/dump.txt");
    expect(f).toMatchObject({
      status: "modified",
      binary: false,
      before: null,
      after: null,
      addedLines: [{ line: 1234, text: `${row(1234)} changed` }],
    });
    expect(f.size).toBe(Buffer.byteLength(bigText()) + " changed".length);
  });

  it("renamed with an edit (a deletion it pairs with): renamed, only the edited line added", async () => {
    const r = await repo();
    r.write("data/dump.txt", bigText());
    r.stage();
    r.commit("dump");
    r.remove("data/dump.txt");
    r.write("data/moved.txt", bigText().replace(`${row(77)}\n`, `${row(77)} edited\n`));
    r.stage();
    const f = await fileIn(r, "data/moved.txt");
    // git reads both versions to pair them, and then diffs them whatever their size: as before.
    expect(f).toMatchObject({ status: "renamed", oldPath: "data/dump.txt", addedLines: [{ line: 77, text: `${row(77)} edited` }] });
  });

  it("with a diff driver named in .gitattributes: git's diff of it, every line added", async () => {
    const r = await repo();
    r.write(".gitattributes", "*.txt diff=dump\n");
    r.write("data/dump.txt", bigText());
    r.stage();
    const f = await fileIn(r, "data/dump.txt");
    expect(f).toMatchObject({ status: "added", binary: false });
    const lines = streamed(f);
    expect(lines).toHaveLength(LINES);
    expect(lines[LINES - 1]).toBe(`${LINES}:${row(LINES)}`);
  });
});

describe("which way each is read (the diff record)", () => {
  const settled = async (r: TempRepo): Promise<Awaited<ReturnType<typeof readSettledDiff>>> => {
    const blobs = new BlobReader(r.dir);
    try {
      return await readSettledDiff(r.dir, blobs, ["--cached"], []);
    } finally {
      blobs.close();
    }
  };

  it("a big added file: git printed no patch for it; its blob is in a file of its own", async () => {
    const r = await repo();
    r.write("data/dump.txt", bigText());
    r.write("small.txt", "a\n");
    r.stage();
    const d = await settled(r);
    expect(d.patch).toContain("Binary files /dev/null and b/data/dump.txt differ");
    expect(d.patch).toContain("+a\n");
    expect([...(d.blobFiles?.keys() ?? [])]).toEqual(["data/dump.txt"]);
    expect(d.undiffedAbove).toBe(UNDIFFED_ABOVE);
  });

  it("a big modified file: the diff read again with every blob diffed (its hunk in the patch)", async () => {
    const r = await repo();
    r.write("data/dump.txt", bigText());
    r.stage();
    r.commit("dump");
    r.write("data/dump.txt", bigText().replace(`${row(9)}\n`, `${row(9)} changed\n`));
    r.stage();
    const d = await settled(r);
    expect(d.patch).toContain(`+${row(9)} changed`);
    expect(d.patch).not.toContain("Binary files");
    expect(d.blobFiles).toBeUndefined();
    expect(d.undiffedAbove).toBeUndefined();
    expect([...(d.heldOut ?? [])]).toEqual(["data/dump.txt"]);
  });
});

describe("a big blob git cannot read", () => {
  it("a corrupt big added file fails the unit, naming the object and the file (never read as no file)", async () => {
    const r = await repo();
    r.write("data/dump.txt", bigText());
    r.stage();
    const oid = r.git("rev-parse", ":data/dump.txt").trim();
    const path = join(r.dir, ".git", "objects", oid.slice(0, 2), oid.slice(2));
    chmodSync(path, 0o644);
    writeFileSync(path, "not a zlib stream");
    const err = await (await openRepo(r.dir)).units({ mode: "staged" }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(GateError);
    expect((err as GateError).message).toMatch(
      new RegExp(`^the repository is corrupt: object ${oid} for data/dump.txt cannot be read; run git fsck`),
    );
  });
});
