// Listing and reading only what the globs name (what a pre-commit check needs in a big repository),
// on every kind of snapshot, plus the one-door rule for starting git.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import picomatch from "picomatch";
import { openRepo, openTree, type Snapshot } from "../../src/git/index.js";
import { makeFolder, makeRepo, type TempFolder, type TempRepo } from "../helpers/repo.js";

let r: TempRepo;
let f: TempFolder;
let base: string;
let tip: string;

const FILES = [
  "kvgate.yaml",
  "scripts/a.env",
  "scripts/b.env",
  "scripts/deep/c.env",
  "scripts/notes.txt",
  "ops/d.env",
  "playbooks/site.yaml",
  "playbooks/roles/x.yml",
  "ledgers/a.yaml",
  "src/app.ts",
  ".hidden/e.env",
  "café/ü.env",
  "compose.yaml",
  "deploy/docker-compose.prod.yml",
  "deploy/x/compose.override.yaml",
  "ledgers/deep/y.yaml",
  "models/org/m/config.json",
];

beforeAll(async () => {
  r = await makeRepo();
  for (const p of FILES) {
    r.write(p, `${p}\n`);
    r.write(`sub/${p}`, `sub ${p}\n`);
    r.write(`s*b[1]/${p}`, `odd ${p}\n`);
  }
  r.symlink("a.env", "scripts/link.env");
  r.stage();
  base = r.commit("base");
  r.write("scripts/new.env", "N=1\n");
  r.remove("scripts/b.env");
  r.git("mv", "ops/d.env", "scripts/moved-in.env");
  r.git("mv", "scripts/deep/c.env", "ops/moved-out.env");
  r.stage();
  tip = r.commit("change");
  r.write("scripts/staged.env", "S=1\n");
  r.remove("scripts/a.env");
  r.git("mv", "scripts/new.env", "playbooks/new.env");
  r.stage();
  r.write("scripts/untracked.env", "U=1\n");
  f = await makeFolder();
  for (const p of FILES) {
    f.write(p, `${p}\n`);
    f.write(`sub/${p}`, `sub ${p}\n`);
    f.write(`s*b[1]/${p}`, `odd ${p}\n`);
  }
});
afterAll(async () => {
  await Promise.all([r?.cleanup(), f?.cleanup()]);
});

const GLOBS: string[][] = [
  ["scripts/*.env"],
  ["**/*.env"],
  ["scripts/**/*.env", "kvgate.yaml"],
  ["{scripts,ops}/*.env"],
  ["playbooks/**/*.{yml,yaml}"],
  ["ledgers/{service}.yaml", "ledgers/*.yaml"],
  ["café/*.env", ".hidden/*"],
  ["nothing/*.env"],
  ["**/{docker-compose,compose}*.{yml,yaml}"],
  ["ledgers/**", "models/**/config.json", "s?ripts/*.env"],
  ["**/*.yml", "**/.env", "**/*.env"],
  ["scripts/[ab].env", "@(scripts|ops)/*.env"],
];

/** Every kind of snapshot, opened at the toplevel or a sub-folder. */
async function snapshots(sub: string): Promise<[string, Snapshot][]> {
  const dir = join(r.dir, sub);
  const g = await openRepo(dir);
  const [staged] = await g.units({ mode: "staged" });
  const [commit] = await g.units({ mode: "commit", rev: tip });
  const [streamed] = await g.units({ mode: "range", range: `${base}..${tip}`, unit: "commit" });
  const [all] = await (await openTree(dir)).units({ mode: "all" });
  const [folder] = await (await openTree(join(f.dir, sub))).units({ mode: "all" });
  return [
    ["index (staged after)", staged!.after],
    ["HEAD (staged before, derived)", staged!.before!],
    ["a commit's tree", commit!.after],
    ["its parent's tree", commit!.before!],
    ["a streamed commit", streamed!.after],
    ["HEAD by name", await g.snapshot("HEAD")],
    ["the worktree", all!.after],
    ["a plain folder", folder!.after],
  ];
}

describe.each([
  ["the toplevel", ""],
  ["a sub-folder", "sub"],
  ["a sub-folder whose name is a glob", "s*b[1]"],
])("list(globs) at %s", (_where, sub) => {
  it("equals the whole listing filtered by picomatch (dot: true), for every snapshot and glob set", async () => {
    for (const [name, s] of await snapshots(sub)) {
      // Narrow first (a fresh snapshot has listed nothing), then the whole listing as the oracle.
      const narrowed: string[][] = [];
      for (const globs of GLOBS) narrowed.push(await s.list(globs));
      const whole = await s.list();
      expect(whole.length, name).toBeGreaterThan(5);
      GLOBS.forEach((globs, i) => {
        const isMatch = picomatch(globs, { dot: true });
        expect([name, globs, narrowed[i]]).toEqual([name, globs, whole.filter((p) => isMatch(p))]);
      });
    }
  });
});

describe("the staged path asks git only for what it needs", () => {
  it("a read needs no listing, and a narrowed listing names its globs to git", async () => {
    const trace = join(tmpdir(), `kvgate-narrow-${process.pid}-${Date.now()}.log`);
    process.env.GIT_TRACE = trace;
    let listed: string[];
    let config: Buffer | null | undefined;
    try {
      const g = await openRepo(r.dir);
      const [u] = await g.units({ mode: "staged" });
      config = (await u!.after.read(["kvgate.yaml", ".kvgate.yaml"])).get("kvgate.yaml");
      expect((await u!.before!.read(["kvgate.yaml"])).get("kvgate.yaml")?.toString()).toBe("kvgate.yaml\n");
      listed = await u!.after.list(["scripts/*.env"]);
      const before = await u!.before!.list(["scripts/*.env"]);
      expect(before).toEqual(["scripts/a.env", "scripts/moved-in.env", "scripts/new.env"]);
    } finally {
      delete process.env.GIT_TRACE;
    }
    const lines = readFileSync(trace, "utf8")
      .split("\n")
      .filter((l) => /trace: built-in: git /.test(l));
    rmSync(trace, { force: true });
    expect(config?.toString()).toBe("kvgate.yaml\n");
    expect(listed).toEqual(["scripts/moved-in.env", "scripts/staged.env"]);
    const commands = lines.map((l) => /trace: built-in: git (\S+)/.exec(l)?.[1]);
    // open, ONE diff, a lookup of the two config names (HEAD shares it), the index by the glob
    // (HEAD is derived from it), and the one cat-file.
    expect(commands.sort()).toEqual(["cat-file", "diff", "ls-files", "ls-files", "rev-parse"]);
    const lsFiles = lines.filter((l) => / ls-files /.test(l));
    expect(lsFiles[0]).toMatch(/-- ':\(top,literal\)kvgate\.yaml' ':\(top,literal\)\.kvgate\.yaml'$/);
    expect(lsFiles[1]).toMatch(/-- ':\(top,glob\)scripts\/\*\.env' ':\(top,literal\)scripts\/\*\.env'$/);
  });

  it("a glob that can match anywhere is narrowed by git's glob pathspecs, not by listing the whole index", async () => {
    const trace = join(tmpdir(), `kvgate-narrow-glob-${process.pid}-${Date.now()}.log`);
    process.env.GIT_TRACE = trace;
    let listed: string[];
    try {
      const [u] = await (await openRepo(r.dir)).units({ mode: "staged" });
      listed = await u!.after.list(["**/{docker-compose,compose}*.{yml,yaml}"]);
    } finally {
      delete process.env.GIT_TRACE;
    }
    const lsFiles = readFileSync(trace, "utf8")
      .split("\n")
      .filter((l) => /trace: built-in: git ls-files /.test(l));
    rmSync(trace, { force: true });
    expect(listed).toEqual([
      "compose.yaml",
      "deploy/docker-compose.prod.yml",
      "deploy/x/compose.override.yaml",
      "s*b[1]/compose.yaml",
      "s*b[1]/deploy/docker-compose.prod.yml",
      "s*b[1]/deploy/x/compose.override.yaml",
      "sub/compose.yaml",
      "sub/deploy/docker-compose.prod.yml",
      "sub/deploy/x/compose.override.yaml",
    ]);
    expect(lsFiles).toHaveLength(1);
    expect(lsFiles[0]).toContain("':(top,glob)**/docker-compose*.yml' ':(top,glob)**/docker-compose*.yaml' ':(top,glob)**/compose*.yml'");
  });

  it("GIT_TRACE=1 (trace lines on git's stderr) is not taken for a corrupt repository", async () => {
    process.env.GIT_TRACE = "1";
    try {
      const [u] = await (await openRepo(r.dir)).units({ mode: "staged" });
      expect((await u!.after.read(["scripts/staged.env"])).get("scripts/staged.env")?.toString()).toBe("S=1\n");
      const [c] = await (await openRepo(r.dir)).units({ mode: "range", range: `${base}..${tip}`, unit: "commit" });
      expect((await c!.after.read(["scripts/new.env"])).get("scripts/new.env")?.toString()).toBe("N=1\n");
    } finally {
      delete process.env.GIT_TRACE;
    }
  });
});

describe("one door", () => {
  it("no file under src/ but src/git/exec.ts starts a process or imports simple-git", () => {
    const root = join(__dirname, "..", "..", "src");
    const files = (readdirSync(root, { recursive: true }) as string[]).filter((p) => p.endsWith(".ts")).map((p) => p.split("\\").join("/"));
    expect(files.length).toBeGreaterThan(50);
    // Type-only imports start nothing.
    const starts = /^import (?!type )[^;]*from "((node:)?child_process|simple-git)"|require\("(node:)?child_process"\)/m;
    const doors = files.filter((p) => starts.test(readFileSync(join(root, p), "utf8")));
    expect(doors).toEqual(["git/exec.ts"]);
  });
});
