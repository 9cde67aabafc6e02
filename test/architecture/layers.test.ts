// Imports point down the layers only (test/architecture/layers.ts): every import of every file under
// src/, static or dynamic, read with TypeScript's own pre-parser.
import { describe, expect, test } from "vitest";
import { readFileSync, readdirSync, statSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";
import ts from "typescript";
import { layerOf, upwardImports } from "./layers.js";

const SRC = "src";
const walk = (dir: string): string[] =>
  readdirSync(dir).flatMap((n) => (statSync(join(dir, n)).isDirectory() ? walk(join(dir, n)) : n.endsWith(".ts") ? [join(dir, n)] : []));

/** `[importing file, import as written, imported file]` for every relative import under src/. */
function imports(): [string, string, string][] {
  const out: [string, string, string][] = [];
  for (const file of walk(SRC)) {
    const info = ts.preProcessFile(readFileSync(file, "utf8"), true, true);
    for (const ref of info.importedFiles) {
      if (!ref.fileName.startsWith(".")) continue;
      out.push([relative(SRC, file), ref.fileName, relative(SRC, normalize(join(dirname(file), ref.fileName))).replace(/\.js$/, ".ts")]);
    }
  }
  return out;
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

  test("no import runs back up the layers", () => {
    expect(upwardImports(all)).toEqual([]);
  });

  test("the check names the file and the import", () => {
    expect(upwardImports([["kv/render.ts", "../report/color.js", "report/color.ts"]])).toEqual([
      "src/kv/render.ts imports ../report/color.js: domain math may not import views and reporters",
    ]);
  });
});
