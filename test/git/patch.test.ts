import { describe, expect, it } from "vitest";
import { parsePatch, unquote } from "../../src/git/patch.js";
import { DiffParser } from "../../src/git/diffstream.js";

describe("unquote", () => {
  it.each([
    ["plain/path.env", "plain/path.env"],
    ['"a\\tb.env"', "a\tb.env"],
    ['"caf\\303\\251.env"', "café.env"],
    ['"q\\"uote\\\\.env"', 'q"uote\\.env'],
    ['"emoji 😀\\n.env"', "emoji 😀\n.env"],
  ])("%s", (input, expected) => expect(unquote(input)).toBe(expected));
});

describe("parsePatch", () => {
  it("keys sections by path, counts context lines, merges type-change halves, flags binaries", () => {
    const out = [
      "diff --git a/x y b/x y",
      "index 1..2 100644",
      "--- a/x y",
      "+++ b/x y",
      "@@ -2 +2,2 @@",
      "-old",
      "+new",
      "+more",
      "@@ -9,3 +10,3 @@",
      " ctx",
      "-gone",
      "+here",
      " ctx",
      'diff --git "a/t\\tb" "b/t\\tb"',
      "new file mode 100644",
      "@@ -0,0 +1 @@",
      "+x",
      "diff --git a/l b/l",
      "deleted file mode 100644",
      "@@ -1 +0,0 @@",
      "-x",
      "diff --git a/l b/l",
      "new file mode 100644",
      "@@ -0,0 +1,2 @@",
      "+a",
      "++b",
      "diff --git a/old b/new",
      "similarity index 90%",
      "rename from old",
      "rename to new",
      "@@ -3 +3 @@",
      "-a",
      "+diff --git a/z b/z",
      "diff --git a/img b/img",
      "Binary files a/img and b/img differ",
    ].join("\n");
    const files = parsePatch(out);
    expect(files.get("x y")?.added).toEqual([2, 3, 11]);
    expect(files.get("t\tb")?.added).toEqual([1]);
    expect(files.get("l")?.added).toEqual([1, 2]);
    expect(files.get("new")?.added).toEqual([3]);
    expect(files.get("img")).toEqual({ path: "img", added: [], binary: true });
    expect(files.get("x y")?.binary).toBe(false);
  });
});

describe("DiffParser on one diff (`git diff --raw -p -z`)", () => {
  const z = "0".repeat(40);
  const a = "a".repeat(40);
  const out = `:100644 100644 ${a} ${a} R087\0old name\0new name\0:000000 120000 ${z} ${a} A\0link\0\0diff --git a/old name b/new name\n@@ -1 +1 @@\n-x\n+y\n`;

  it("reads renames (two paths) and plain records, then the patch; fed a byte at a time the same", () => {
    const whole = new DiffParser("diff");
    const records = [...whole.feed(Buffer.from(out)), ...whole.end()];
    const bytewise = new DiffParser("diff");
    const bytes = Buffer.from(out);
    const one: ReturnType<DiffParser["end"]> = [];
    for (let i = 0; i < bytes.length; i++) one.push(...bytewise.feed(bytes.subarray(i, i + 1)));
    one.push(...bytewise.end());
    expect(one).toEqual(records);
    expect(records).toHaveLength(1);
    expect(records[0]?.patch).toBe("diff --git a/old name b/new name\n@@ -1 +1 @@\n-x\n+y\n");
    expect(records[0]?.raw).toEqual([
      { oldMode: "100644", newMode: "100644", oldOid: a, newOid: a, status: "R", oldPath: "old name", path: "new name" },
      { oldMode: "000000", newMode: "120000", oldOid: z, newOid: a, status: "A", oldPath: "link", path: "link" },
    ]);
  });

  it("an empty diff is one record with nothing in it; a cut-off record is an error with a hint", () => {
    const empty = new DiffParser("diff");
    expect([...empty.feed(Buffer.alloc(0)), ...empty.end()]).toEqual([{ raw: [], patch: "" }]);
    const cut = new DiffParser("diff");
    cut.feed(Buffer.from(out.slice(0, 60)));
    expect(() => cut.end()).toThrow(/git diff: truncated raw diff/);
    const junk = new DiffParser("diff");
    expect(() => junk.feed(Buffer.from("not a record\0"))).toThrow(/git diff: unexpected raw record/);
  });
});
