import { describe, expect, it } from "vitest";
import { parsePatch, unquote } from "../../src/git/patch.js";
import { parseRawDiff } from "../../src/git/rawdiff.js";

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

describe("parseRawDiff", () => {
  it("reads renames (two paths) and plain records", () => {
    const z = "0".repeat(40);
    const a = "a".repeat(40);
    const out = `:100644 100644 ${a} ${a} R087\0old name\0new name\0:000000 120000 ${z} ${a} A\0link\0`;
    expect(parseRawDiff(out)).toEqual([
      { oldMode: "100644", newMode: "100644", oldOid: a, newOid: a, status: "R", oldPath: "old name", path: "new name" },
      { oldMode: "000000", newMode: "120000", oldOid: z, newOid: a, status: "A", oldPath: "link", path: "link" },
    ]);
  });
});
