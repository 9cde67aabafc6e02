// One diff parser for every unit: the same change seen as the staged change, as a commit, as a
// commit of a streamed range and as a whole range gives the same ChangedFiles, contents and notices
// (at the toplevel and from a sub-folder), and each row's answer is checked against the numbers.
import { afterAll, describe, expect, it } from "vitest";
import { chmodSync } from "node:fs";
import { join } from "node:path";
import { openRepo } from "../../src/git/index.js";
import type { ChangedFile, DeployUnit } from "../../src/git/index.js";
import { makeRepo, type TempRepo } from "../helpers/repo.js";

const temps: TempRepo[] = [];
afterAll(async () => {
  await Promise.all(temps.map((t) => t.cleanup()));
});

/** status, oldPath, binary, size, added line numbers: what each row expects of its one file. */
type Summary = [ChangedFile["status"], string | null, boolean, number | null, number[]];

interface Row {
  name: string;
  base: Record<string, string | Buffer>;
  change(r: TempRepo, at: (p: string) => string): void;
  /** The changed files, by path (relative to the opened folder). */
  files: Record<string, Summary>;
  notices?: string[];
}

const LINES = Array.from({ length: 12 }, (_, i) => `L${i + 1}`).join("\n") + "\n";

const ROWS: Row[] = [
  {
    name: "a modified file with two hunks",
    base: { "f.env": LINES },
    change: (r, at) => r.write(at("f.env"), LINES.replace("L2\n", "two\n").replace("L6\n", "six\nsix.5\n")),
    files: { "f.env": ["modified", null, false, 47, [2, 6, 7]] },
  },
  {
    name: "an added file",
    base: {},
    change: (r, at) => r.write(at("new.env"), "A=1\nB=2\n"),
    files: { "new.env": ["added", null, false, 8, [1, 2]] },
  },
  {
    name: "an added empty file",
    base: {},
    change: (r, at) => r.write(at("empty.env"), ""),
    files: { "empty.env": ["added", null, false, 0, []] },
  },
  {
    name: "a deleted file",
    base: { "gone.env": "G=1\n" },
    change: (r, at) => r.remove(at("gone.env")),
    files: { "gone.env": ["deleted", null, false, 0, []] },
  },
  {
    name: "a rename with a changed line",
    base: { "old name.env": "R1=1\nR2=2\nR3=3\nR4=4\n" },
    change: (r, at) => {
      r.git("mv", at("old name.env"), at("new name.env"));
      r.write(at("new name.env"), "R1=1\nR2=changed\nR3=3\nR4=4\n");
    },
    files: { "new name.env": ["renamed", "old name.env", false, 26, [2]] },
  },
  {
    name: "CRLF lines",
    base: { "crlf.env": "A=1\r\nB=2\r\n" },
    change: (r, at) => r.write(at("crlf.env"), "A=1\r\nB=3\r\nC=4\r\n"),
    files: { "crlf.env": ["modified", null, false, 15, [2, 3]] },
  },
  {
    name: "no final newline",
    base: { "nonl.env": "A=1\nB=2" },
    change: (r, at) => r.write(at("nonl.env"), "A=1\nB=3"),
    files: { "nonl.env": ["modified", null, false, 7, [2]] },
  },
  {
    name: "a binary file (NUL bytes)",
    base: { "blob.bin": Buffer.from([0x41, 0x0a]) },
    change: (r, at) => r.write(at("blob.bin"), Buffer.from([0x41, 0x00, 0x42, 0x0a])),
    files: { "blob.bin": ["modified", null, true, 4, []] },
  },
  {
    name: "a binary file by attribute",
    base: { ".gitattributes": "*.dat binary\n", "table.dat": "a=1\n" },
    change: (r, at) => r.write(at("table.dat"), "a=1\nb=2\n"),
    files: { "table.dat": ["modified", null, true, 8, []] },
  },
  {
    name: "non-ASCII, a space and a tab in the name",
    base: {},
    change: (r, at) => r.write(at("café ü\tx.env"), "É=1\n"),
    files: { "café ü\tx.env": ["added", null, false, 5, [1]] },
  },
  {
    name: "a mode change only",
    base: { "run.sh": "echo hi\n" },
    change: (r, at) => chmodSync(join(r.dir, at("run.sh")), 0o755),
    files: { "run.sh": ["modified", null, false, 8, []] },
  },
  {
    name: "a symlink added, a file turned into one (skipped with notices)",
    base: { "was-file": "x\n" },
    change: (r, at) => {
      r.symlink("was-file", at("link.env"));
      r.remove(at("was-file"));
      r.symlink("link.env", at("was-file"));
    },
    files: {},
    notices: ["link.env", "was-file"],
  },
];

function summary(u: DeployUnit): Record<string, Summary> {
  return Object.fromEntries(u.files.map((f) => [f.path, [f.status, f.oldPath, f.binary, f.size, f.addedLines.map((l) => l.line)]]));
}

/** Everything a unit says of its files, and what its snapshots read at those paths. */
async function seen(u: DeployUnit): Promise<unknown> {
  const paths = u.files.flatMap((f) => [f.path, ...(f.oldPath ? [f.oldPath] : [])]);
  const text = (m: Map<string, Buffer | null>) => [...m].map(([p, b]) => [p, b?.toString("base64") ?? null]);
  return { files: u.files, notices: u.notices, before: text(await u.before!.read(paths)), after: text(await u.after.read(paths)) };
}

function only<T>(xs: T[]): T {
  expect(xs).toHaveLength(1);
  return xs[0] as T;
}

describe.each([
  ["the toplevel", ""],
  ["a sub-folder", "sub"],
])("one change, four ways to see it, at %s", (_where, sub) => {
  it.each(ROWS.map((row) => [row.name, row] as const))("%s", async (_name, row) => {
    const r = await makeRepo();
    temps.push(r);
    const at = (p: string): string => (sub ? `${sub}/${p}` : p);
    for (const [p, text] of Object.entries(row.base)) r.write(at(p), text);
    r.write("outside.env", "O=1\n");
    r.stage();
    const base = r.commit("base");
    row.change(r, at);
    r.write("outside.env", "O=2\n"); // changed too, outside the folder when there is one
    r.stage();

    const dir = join(r.dir, sub);
    const staged = only(await (await openRepo(dir)).units({ mode: "staged" }));
    const sha = r.commit("the change");
    const g = await openRepo(dir);
    const commit = only(await g.units({ mode: "commit", rev: sha }));
    const streamed = only(await g.units({ mode: "range", range: `${base}..${sha}`, unit: "commit" }));
    const whole = only(await g.units({ mode: "range", range: `${base}..${sha}`, unit: "range" }));
    const light = only(await collect(g.addedLinesInRange(`${base}..${sha}`)));

    const want = sub ? row.files : { ...row.files, "outside.env": ["modified", null, false, 4, [1]] as Summary };
    expect(summary(staged)).toEqual(want);
    expect((row.notices ?? []).sort()).toEqual(staged.notices.map((n) => n.path).sort());
    const first = await seen(staged);
    for (const u of [commit, streamed, whole]) expect(await seen(u)).toEqual(first);
    // The light view looks a size up only where a finding shows it (binary and streamed files).
    expect(light.files).toEqual(staged.files.map((f) => ({ ...f, before: null, after: null, size: f.after === null ? f.size : null })));
    expect(light.notices).toEqual(staged.notices);
  });
});

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}
