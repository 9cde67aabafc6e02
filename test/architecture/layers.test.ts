// Imports point down the layers only (test/architecture/layers.ts): every import of every file under
// src/, static or dynamic, read with TypeScript's own pre-parser. Below the engine no file but git/'s
// and load/'s does I/O, and no two folders import each other.
import { describe, expect, test } from "vitest";
import { readFileSync, readdirSync, statSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";
import ts from "typescript";
import { folderCircles, ioBelowEngine, layerOf, upwardImports } from "./layers.js";

const SRC = "src";
const walk = (dir: string): string[] =>
  readdirSync(dir).flatMap((n) => (statSync(join(dir, n)).isDirectory() ? walk(join(dir, n)) : n.endsWith(".ts") ? [join(dir, n)] : []));

/** `[importing file, import as written]` for every import under src/. */
function allImports(): [string, string][] {
  const out: [string, string][] = [];
  for (const file of walk(SRC)) {
    const info = ts.preProcessFile(readFileSync(file, "utf8"), true, true);
    for (const ref of info.importedFiles) out.push([relative(SRC, file), ref.fileName]);
  }
  return out;
}

/** `[importing file, import as written, imported file]` for every relative import under src/. */
function imports(): [string, string, string][] {
  return allImports()
    .filter(([, spec]) => spec.startsWith("."))
    .map(([from, spec]) => [from, spec, relative(SRC, normalize(join(SRC, dirname(from), spec))).replace(/\.js$/, ".ts")]);
}

describe("the layers of src/", () => {
  const all = imports();

  test("the pre-parser sees the imports (static, type-only and dynamic)", () => {
    expect(all.length).toBeGreaterThan(300);
    expect(all.some(([from, spec]) => from === "cli/main.ts" && spec === "./commands/check.js")).toBe(true);
  });

  test("every file is in a layer", () => {
    expect(
      walk(SRC)
        .map((f) => relative(SRC, f))
        .filter((f) => layerOf(f) === undefined),
    ).toEqual([]);
  });

  test("no import runs back up the layers, and only the commands import a feature folder", () => {
    expect(upwardImports(all)).toEqual([]);
  });

  test("the check names the file and the import", () => {
    expect(upwardImports([["kv/render.ts", "../report/color.js", "report/color.ts"]])).toEqual([
      "src/kv/render.ts imports ../report/color.js: domain math may not import views and reporters",
    ]);
    expect(upwardImports([["observe/beszel.ts", "../usage/row.js", "usage/row.ts"]])).toEqual([
      "src/observe/beszel.ts imports ../usage/row.js: usage/ is a feature folder, which only the commands import",
    ]);
  });

  test("below the engine, only git/ and load/ reach the filesystem, processes or the network", () => {
    expect(ioBelowEngine(allImports())).toEqual([]);
  });

  test("the I/O check fails on an fs import in a check or a child process in the domain math", () => {
    expect(
      ioBelowEngine([
        ["checks/gpu-fits.ts", "node:fs"],
        ["kv/seat.ts", "child_process"],
        ["load/fleet.ts", "node:fs"],
      ]),
    ).toEqual([
      "src/checks/gpu-fits.ts imports node:fs: below the engine only git/ and load/ do I/O",
      "src/kv/seat.ts imports child_process: below the engine only git/ and load/ do I/O",
    ]);
  });

  test("no two folders import each other, directly or round a circle", () => {
    expect(folderCircles(all)).toEqual([]);
  });

  test("the circle check finds a direct pair and a longer circle", () => {
    expect(
      folderCircles([
        ["kv/seat.ts", "../fix/types.js", "fix/types.ts"],
        ["fix/kv-room.ts", "../kv/seat.js", "kv/seat.ts"],
        ["plan/a.ts", "../radiance/b.js", "radiance/b.ts"],
        ["radiance/b.ts", "../secrets/c.js", "secrets/c.ts"],
        ["secrets/c.ts", "../plan/d.js", "plan/d.ts"],
      ]),
    ).toEqual(["fix ↔ kv: these folders import each other", "plan ↔ radiance ↔ secrets: these folders import each other"]);
  });
});
