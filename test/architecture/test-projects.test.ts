// Which project a test file runs in is its name (vitest.config.ts): `*.e2e.test.ts` is end to end, any
// other `*.test.ts` a unit test. This holds the names to what the files do, by what they import,
// followed through test/'s helpers and fixtures (never into src/: src/ starts processes only through
// src/git/exec.ts, and test/helpers/unit-setup.ts fails a unit test that gets there):
// - a unit file reaches no module that starts a process or talks to a server, imports nothing built
//   into dist/, and leaves no state behind for the next file its worker runs (the unit project shares
//   workers: vi.mock, process.chdir and writes to process.env would leak);
// - an e2e file reaches at least one such module, or it belongs in the fast project.
import { describe, expect, test } from "vitest";
import { existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, normalize } from "node:path";
import ts from "typescript";
import { topLevelOf } from "../../src/git/exec.js";

/** Modules whose use makes a test end to end, and why. */
const E2E_MODULES: Record<string, string> = {
  "node:child_process": "starts processes",
  child_process: "starts processes",
  "simple-git": "runs git",
  pg: "talks to a PostgreSQL server",
  esbuild: "starts esbuild's service process",
};
/** Calls that change what the next file in a shared worker sees. */
const LEAKING_CALLS = new Set(["vi.mock", "vi.doMock", "vi.stubEnv", "vi.stubGlobal", "process.chdir"]);

interface Scanned {
  /** Modules it loads when it runs, as written (type-only imports load nothing). */
  imports: string[];
  /** What it does that a shared worker would carry over to the next file. */
  leaks: string[];
}

const scanned = new Map<string, Scanned>();
function scanSource(path: string, text: string): Scanned {
  const key = `${path}\0${text}`;
  const known = scanned.get(key);
  if (known) return known;
  const file = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
  const imports: string[] = [];
  const leaks: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && !node.importClause?.isTypeOnly && ts.isStringLiteral(node.moduleSpecifier)) {
      imports.push(node.moduleSpecifier.text);
    } else if (ts.isExportDeclaration(node) && !node.isTypeOnly && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      imports.push(node.moduleSpecifier.text);
    } else if (ts.isCallExpression(node)) {
      const [arg] = node.arguments;
      const callee = node.expression.getText(file);
      if ((node.expression.kind === ts.SyntaxKind.ImportKeyword || callee === "require") && arg && ts.isStringLiteralLike(arg)) {
        imports.push(arg.text);
      }
      if (LEAKING_CALLS.has(callee)) leaks.push(`${callee}()`);
    } else if (ts.isBinaryExpression(node) && isAssignment(node.operatorToken.kind) && writesEnv(node.left, file)) {
      leaks.push(`${node.left.getText(file)} ${node.operatorToken.getText(file)}`);
    } else if (ts.isDeleteExpression(node) && writesEnv(node.expression, file)) {
      leaks.push(`delete ${node.expression.getText(file)}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  scanned.set(key, { imports, leaks });
  return { imports, leaks };
}

const isAssignment = (k: ts.SyntaxKind): boolean => k >= ts.SyntaxKind.FirstAssignment && k <= ts.SyntaxKind.LastAssignment;
const writesEnv = (target: ts.Node, file: ts.SourceFile): boolean => /^process\.env\b/.test(target.getText(file));

/** A repository file reads as text, or null when there is none. */
type Read = (path: string) => string | null;

/** Where a relative import lands, as a repository path (`.js` written for a `.ts` file). */
function resolveImport(from: string, spec: string, read: Read): string {
  const path = normalize(join(dirname(from), spec));
  const ts = path.replace(/\.js$/, ".ts");
  return ts !== path && read(ts) !== null ? ts : path;
}

interface Finding {
  /** The files from the test file to the one that does it. */
  chain: string[];
  what: string;
  kind: "e2e" | "leak";
}

/** Everything a test file does, through the test-local modules it loads (depth first, each once). */
function reach(testFile: string, read: Read): Finding[] {
  const out: Finding[] = [];
  const seen = new Set<string>();
  const walk = (path: string, chain: string[]): void => {
    if (seen.has(path)) return;
    seen.add(path);
    const text = read(path);
    if (text === null || !/\.[cm]?ts$/.test(path)) return;
    const here = [...chain, path];
    const { imports, leaks } = scanSource(path, text);
    for (const leak of leaks) out.push({ chain: here, what: `leaves shared state behind (${leak})`, kind: "leak" });
    for (const spec of imports) {
      if (!spec.startsWith(".")) {
        const name = spec.startsWith("@") ? spec.split("/").slice(0, 2).join("/") : spec.split("/")[0]!;
        const why = E2E_MODULES[spec] ?? E2E_MODULES[name];
        if (why) out.push({ chain: here, what: `imports ${spec} (${why})`, kind: "e2e" });
        continue;
      }
      const target = resolveImport(path, spec, read);
      if (target.startsWith("dist/")) out.push({ chain: here, what: `imports the built ${target} (the e2e setup builds it)`, kind: "e2e" });
      else if (!target.startsWith("src/")) walk(target, here);
    }
  };
  walk(testFile, []);
  return out;
}

const say = (f: Finding): string => `${f.chain.join(" → ")} ${f.what}`;

/** Unit-project problems of a file: all it does (a unit file), or that it needs nothing of the e2e project. */
function problems(testFile: string, read: Read): string[] {
  const found = reach(testFile, read);
  if (!testFile.endsWith(".e2e.test.ts")) {
    return found.map((f) =>
      f.kind === "e2e"
        ? `${say(f)}: name the file *.e2e.test.ts, or move the cases that need it to one`
        : `${say(f)}: unit files share a worker; restore it in the test or name the file *.e2e.test.ts`,
    );
  }
  return found.some((f) => f.kind === "e2e")
    ? []
    : [`${testFile} starts no process and builds nothing: name it *.test.ts, so npm run test:unit runs it`];
}

const readRepo: Read = (path) => (existsSync(path) && statSync(path).isFile() ? readFileSync(path, "utf8") : null);
const walkDir = (dir: string): string[] =>
  readdirSync(dir).flatMap((n) => (statSync(join(dir, n)).isDirectory() ? walkDir(join(dir, n)) : [join(dir, n)]));
const testFiles = walkDir("test").filter((f) => f.endsWith(".test.ts"));

describe("the scan (on files held in memory)", () => {
  const files: Record<string, string> = {
    "test/helpers/repo.ts": 'import { execFileSync } from "node:child_process";\nexport const makeRepo = () => execFileSync("git");\n',
    "test/helpers/cli.ts": 'import { makeRepo } from "./repo.js";\nexport const kvgate = makeRepo;\n',
    "test/helpers/folder.ts": 'import { mkdtempSync } from "node:fs";\nexport const makeFolder = mkdtempSync;\n',
    "test/kv/through-cli.test.ts": 'import { kvgate } from "../helpers/cli.js";\nkvgate();\n',
    "test/kv/types-only.test.ts":
      'import type { TempRepo } from "../helpers/repo.js";\nimport { makeFolder } from "../helpers/folder.js";\n',
    "test/kv/dynamic.test.ts": 'const { spawn } = await import("node:child_process");\n',
    "test/kv/bundle.test.ts": 'import "../../dist/cli.cjs";\n',
    "test/kv/re-export.test.ts": 'export { kvgate } from "../helpers/cli.js";\n',
    "test/kv/env.test.ts": 'process.env.KVGATE_X = "1";\ndelete process.env["HOME"];\nvi.mock("../../src/x.js");\n',
    "test/kv/src-only.test.ts": 'import { runGit } from "../../src/git/exec.js";\n',
    "test/kv/pg.e2e.test.ts": 'import pg from "pg";\n',
    "test/kv/pure.e2e.test.ts": 'import { makeFolder } from "../helpers/folder.js";\n',
  };
  const read: Read = (p) => files[p] ?? null;

  test.each([
    [
      "test/kv/through-cli.test.ts",
      [
        "test/kv/through-cli.test.ts → test/helpers/cli.ts → test/helpers/repo.ts imports node:child_process (starts processes): name the file *.e2e.test.ts, or move the cases that need it to one",
      ],
    ],
    ["test/kv/types-only.test.ts", []],
    [
      "test/kv/dynamic.test.ts",
      [
        "test/kv/dynamic.test.ts imports node:child_process (starts processes): name the file *.e2e.test.ts, or move the cases that need it to one",
      ],
    ],
    [
      "test/kv/bundle.test.ts",
      [
        "test/kv/bundle.test.ts imports the built dist/cli.cjs (the e2e setup builds it): name the file *.e2e.test.ts, or move the cases that need it to one",
      ],
    ],
    [
      "test/kv/re-export.test.ts",
      [
        "test/kv/re-export.test.ts → test/helpers/cli.ts → test/helpers/repo.ts imports node:child_process (starts processes): name the file *.e2e.test.ts, or move the cases that need it to one",
      ],
    ],
    [
      "test/kv/env.test.ts",
      [
        "test/kv/env.test.ts leaves shared state behind (vi.mock()): unit files share a worker; restore it in the test or name the file *.e2e.test.ts",
        "test/kv/env.test.ts leaves shared state behind (process.env.KVGATE_X =): unit files share a worker; restore it in the test or name the file *.e2e.test.ts",
        'test/kv/env.test.ts leaves shared state behind (delete process.env["HOME"]): unit files share a worker; restore it in the test or name the file *.e2e.test.ts',
      ],
    ],
    ["test/kv/src-only.test.ts", []],
    ["test/kv/pg.e2e.test.ts", []],
    [
      "test/kv/pure.e2e.test.ts",
      ["test/kv/pure.e2e.test.ts starts no process and builds nothing: name it *.test.ts, so npm run test:unit runs it"],
    ],
  ])("%s", (file, want) => {
    expect(problems(file, read).sort()).toEqual([...want].sort());
  });
});

describe("every test file is in the project its name says", () => {
  test("the repository has both kinds", () => {
    expect(testFiles.filter((f) => f.endsWith(".e2e.test.ts")).length).toBeGreaterThan(30);
    expect(testFiles.filter((f) => !f.endsWith(".e2e.test.ts")).length).toBeGreaterThan(60);
  });
  test("unit files start no process, import no bundle and leave no state; e2e files need their project", () => {
    expect(testFiles.flatMap((f) => problems(f, readRepo))).toEqual([]);
  });
  test("a file under test/ that declares tests is named *.test.ts (else neither project runs it)", () => {
    const declares = (text: string): boolean => /^(describe|test|it)(\.each\(.*\))?\(/m.test(text);
    const stray = walkDir("test").filter((f) => f.endsWith(".ts") && !f.endsWith(".test.ts") && declares(readFileSync(f, "utf8")));
    expect(stray).toEqual([]);
  });
});

describe("the unit project's process guard (test/helpers/unit-setup.ts)", () => {
  test("git started from src/ fails, naming the command, even where the source turns the failure into its own error", async () => {
    await expect(topLevelOf(tmpdir())).rejects.toThrow(/a unit test started a process \(spawn: git .*rev-parse --show-toplevel\)/);
    // The guard also records it, so that its afterEach fails the test: taken here, this test passes.
    const started = (globalThis as { [k: symbol]: string[] | undefined })[Symbol.for("kvgate.unit-started")];
    expect(started?.splice(0)).toEqual([expect.stringMatching(/^spawn\(git .*rev-parse --show-toplevel\)$/)]);
  });
});
