// Every path the project's own hooks and config files name exists (issue 23: `.husky/pre-commit` and
// `.gitattributes` went on naming dist/cli.js after the bundle became dist/cli.cjs, and
// `.husky/prepare-commit-msg` silently did nothing). Structured files are read by their fields
// (package.json bin/files, action.yml runs.main, .pre-commit-hooks.yaml entry, knip.json, tsconfig.json);
// shell (the hooks, .ci/run, the workflow's run steps, package.json scripts) word by word, where a word
// that looks like a repository path (a folder in it, or a file extension) must exist, and `npm run X`
// must name a script. Glob lists (.gitattributes, .prettierignore, ESLint's ignores, knip) must each
// match a file. A path inside a folder .gitignore ignores whole (node_modules/, .ci/out/, ...) is an
// output the tools create, and may be absent.
import { describe, expect, test } from "vitest";
import { existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import picomatch from "picomatch";
import { parse } from "yaml";

const read = (path: string): string => readFileSync(path, "utf8");
const json = (path: string): Record<string, unknown> => JSON.parse(read(path)) as Record<string, unknown>;

/** Folders .gitignore ignores whole (`name/`): where builds, installs and runs write. */
const OUTPUT_DIRS = read(".gitignore")
  .split("\n")
  .map((l) => l.trim())
  .filter((l) => l.endsWith("/") && !l.startsWith("#") && !l.startsWith("!"));

const isOutput = (path: string): boolean => OUTPUT_DIRS.some((d) => `${path}/`.startsWith(d));

/** The repository's files (not .git, not node_modules), for the glob lists. */
const FILES: string[] = (() => {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir || ".")) {
      const path = dir ? `${dir}/${name}` : name;
      if (path === ".git" || path === "node_modules") continue;
      if (statSync(path).isDirectory()) walk(path);
      else out.push(path);
    }
  };
  walk("");
  return out;
})();

/** A glob matches a file, or a folder holding files; a pattern without a slash matches a name anywhere (git's rule). */
function globMatches(pattern: string): boolean {
  const p = pattern.replace(/^\.\//, "").replace(/\/$/, "/**");
  const isMatch = picomatch(p, { dot: true, basename: !p.includes("/") });
  return FILES.some((f) => isMatch(f)) || (!/[*?[{]/.test(p) && existsSync(p));
}

/** What a missing path is reported as. */
const exists = (path: string): boolean => existsSync(path) || isOutput(path);

const FILE_EXT = /\.(?:mjs|cjs|js|ts|json|ya?ml|sh|md)$/;
const PATH_WORD = /^(?:\.\/)?\.?[\w@+-][\w.@+-]*(?:\/[\w.@+-]+)*\/?$/;

/** The words of shell text that name repository paths (comment lines left out). */
function shellPaths(text: string): string[] {
  const words = text
    .split("\n")
    .filter((l) => !l.trimStart().startsWith("#"))
    .flatMap((l) => l.split(/[\s"'`;|&()<>=,]+/))
    .map((w) => w.replace(/[.:,]+$/, ""))
    .filter((w) => PATH_WORD.test(w) && !w.startsWith("-") && (w.includes("/") || FILE_EXT.test(w)));
  return [...new Set(words)];
}

/** The scripts `npm run` is asked for. */
function npmRuns(text: string): string[] {
  return [...text.matchAll(/\bnpm run((?:\s+--?[\w-]+)*)\s+([\w:.-]+)/g)].map((m) => m[2]!);
}

const SCRIPTS = json("package.json").scripts as Record<string, string>;

/** What a shell text names that is not there. */
function shellMissing(text: string): string[] {
  return [
    ...shellPaths(text).filter((p) => !exists(p)),
    ...npmRuns(text)
      .filter((s) => !(s in SCRIPTS))
      .map((s) => `npm run ${s} (no such script in package.json)`),
  ];
}

const globsMissing = (globs: string[]): string[] => globs.filter((g) => !globMatches(g) && !isOutput(g));

/** Patterns of an ignore-style file: one a line, comments and negations left out. */
const patternLines = (text: string): string[] =>
  text
    .split("\n")
    .map((l) => l.trim().split(/\s+/)[0] ?? "")
    .filter((l) => l !== "" && !l.startsWith("#") && !l.startsWith("!"));

/** Each source: what it names that is missing. */
const SOURCES: Record<string, () => string[]> = {
  ...Object.fromEntries(
    readdirSync(".husky")
      .filter((f) => statSync(join(".husky", f)).isFile())
      .map((f) => [`.husky/${f}`, () => shellMissing(read(join(".husky", f)))]),
  ),
  ".ci/run": () => shellMissing(read(".ci/run")),
  ...Object.fromEntries(
    readdirSync(".github/workflows").map((f) => {
      const path = `.github/workflows/${f}`;
      const steps = (): string[] => {
        const wf = parse(read(path)) as { jobs: Record<string, { steps?: { run?: string }[] }> };
        return Object.values(wf.jobs).flatMap((j) => (j.steps ?? []).flatMap((s) => (s.run ? [s.run] : [])));
      };
      return [path, () => steps().flatMap(shellMissing)];
    }),
  ),
  "package.json bin": () => Object.values(json("package.json").bin as Record<string, string>).filter((p) => !exists(p)),
  "package.json files": () => globsMissing(json("package.json").files as string[]),
  "package.json scripts": () => Object.values(SCRIPTS).flatMap(shellMissing),
  "action.yml runs": () => {
    const runs = (parse(read("action.yml")) as { runs: Record<string, string> }).runs;
    return ["main", "pre", "post"].flatMap((k) => (runs[k] && !exists(runs[k]) ? [runs[k]] : []));
  },
  ".pre-commit-hooks.yaml entry": () =>
    (parse(read(".pre-commit-hooks.yaml")) as { entry: string }[]).map((h) => h.entry.split(/\s+/)[0]!).filter((p) => !exists(p)),
  ".gitattributes": () => globsMissing(patternLines(read(".gitattributes"))),
  ".prettierignore": () => globsMissing(patternLines(read(".prettierignore"))),
  "knip.json": () => {
    const k = json("knip.json") as { entry: string[]; project: string[] };
    return globsMissing([...k.entry, ...k.project]);
  },
  "tsconfig.json include": () => globsMissing((json("tsconfig.json").include as string[]) ?? []),
  "eslint.config.js ignores": () => {
    const lists = [...read("eslint.config.js").matchAll(/ignores:\s*\[([^\]]*)\]/g)].map((m) => m[1]!);
    return globsMissing(lists.flatMap((l) => [...l.matchAll(/"([^"]+)"/g)].map((m) => m[1]!)));
  },
  "vitest.config.ts": () => {
    const literals = [...read("vitest.config.ts").matchAll(/"((?:test|src)\/[^"]+)"/g)].map((m) => m[1]!);
    return globsMissing(literals);
  },
};

describe("what the hooks and config files name exists", () => {
  test.each(Object.keys(SOURCES))("%s", (source) => {
    expect(SOURCES[source]!()).toEqual([]);
  });

  test("the hooks and .pre-commit-hooks.yaml run files that git can execute", () => {
    const entries = (parse(read(".pre-commit-hooks.yaml")) as { entry: string }[]).map((h) => h.entry.split(/\s+/)[0]!);
    for (const p of [...entries, ...Object.values(json("package.json").bin as Record<string, string>)]) {
      expect(statSync(p).mode & 0o111, `${p} is not executable`).not.toBe(0);
    }
  });
});

describe("the reading (what it would have caught)", () => {
  // The hooks and attributes as they were before issue 23: the bundle they name had become dist/cli.cjs.
  const OLD_PRE_COMMIT = [
    "# kvgate's own pre-commit: the strict typecheck, ESLint on the staged files, the committed bundles rebuilt",
    "npm run --silent typecheck",
    'staged_ts=$(git diff --cached --name-only --diff-filter=ACMR -- "*.ts")',
    "node build.mjs",
    "if ! git diff --quiet -- dist/cli.js dist/action/index.js; then",
    '  echo "the bundles differ from what is staged: git add dist/cli.js dist/action/index.js" >&2',
    "fi",
    "node bin/kvgate.js check --staged",
  ].join("\n");

  test("the old pre-commit names dist/cli.js, which is not there; the rest of it is", () => {
    expect(shellPaths(OLD_PRE_COMMIT)).toEqual(["build.mjs", "dist/cli.js", "dist/action/index.js", "bin/kvgate.js"]);
    expect(shellMissing(OLD_PRE_COMMIT)).toEqual(["dist/cli.js"]);
  });
  test("the old prepare-commit-msg and .gitattributes too", () => {
    expect(shellMissing('[ -f dist/cli.js ] || exit 0\nnode bin/kvgate.js hook prepare-commit-msg "$@"\n')).toEqual(["dist/cli.js"]);
    expect(globsMissing(patternLines("# built\ndist/cli.js -diff linguist-generated=true\ndist/action/index.js -diff\n"))).toEqual([
      "dist/cli.js",
    ]);
  });
  test("a script npm run cannot find, an output folder, a comment, a glob and an absolute path", () => {
    expect(shellMissing("npm run --silent typecheck && npm run typo\n")).toEqual(["npm run typo (no such script in package.json)"]);
    expect(shellMissing("eslint --cache-location node_modules/.cache/eslint/ .\nmkdir -p .ci/out\n")).toEqual([]);
    expect(shellMissing("# see docs/gone.md\nls /usr/lib/postgresql/*/bin/initdb '*.ts'\n")).toEqual([]);
    expect(globsMissing(["bench/**/*.mjs", "*.md", "coverage/**", "test/nothing/**/*.ts"])).toEqual(["test/nothing/**/*.ts"]);
  });
});
