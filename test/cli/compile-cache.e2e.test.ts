// The CLI bundle runs through V8's code cache (bin/load-cli.cjs): the first run writes it at exit,
// later runs use it, a broken or foreign one is not used, and none of it changes what kvgate says.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { chownSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { kvgate, ROOT } from "../helpers/cli.js";

const IS_ROOT = process.getuid?.() === 0;
const FLEET = join(ROOT, "examples", "fleet");
const ARGS = ["check", "--all", "--repo", FLEET, "--format", "json"];

let dir: string;
let expected: { code: number | null; stdout: string };

/** A run with the cache in `cacheDir`; the JSON without its timing. */
function run(cacheDir: string, extra: Record<string, string> = {}): { code: number | null; stdout: string; stderr: string } {
  const r = kvgate(ARGS, { cwd: ROOT, env: { KVGATE_CACHE_DIR: cacheDir, KVGATE_DEBUG: "1", ...extra } });
  return { code: r.code, stdout: r.stdout.replace(/"duration_ms":\s*\d+/g, '"duration_ms":0'), stderr: r.stderr };
}

function cacheFiles(cacheDir: string): string[] {
  try {
    return readdirSync(cacheDir).filter((f) => f.endsWith(".v8cache"));
  } catch {
    return [];
  }
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "kvgate-cc-"));
  const plain = run(join(dir, "unused"), { KVGATE_COMPILE_CACHE: "0" });
  expected = { code: plain.code, stdout: plain.stdout };
  expect(plain.stderr).not.toContain("compile cache");
  expect(cacheFiles(join(dir, "unused"))).toEqual([]);
  expect(plain.stdout).toContain('"findings"');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("the compile cache", () => {
  test("written by the first run, used by the next, the same output both times", () => {
    const cache = join(dir, "a");
    const first = run(cache);
    expect(first.stderr).toMatch(/compile cache: absent, written at exit: .*cli-[0-9a-f]{16}-v\d+\.\d+\.\d+-\w+\.v8cache/);
    const files = cacheFiles(cache);
    expect(files).toHaveLength(1);
    expect(statSync(join(cache, files[0] as string)).size).toBeGreaterThan(100_000);
    const second = run(cache);
    expect(second.stderr).toContain(`compile cache: used ${join(cache, files[0] as string)}`);
    expect({ code: first.code, stdout: first.stdout }).toEqual(expected);
    expect({ code: second.code, stdout: second.stdout }).toEqual(expected);
  });

  test("a corrupt cache is rejected by V8, rewritten, and changes nothing", () => {
    const cache = join(dir, "b");
    run(cache);
    const file = join(cache, cacheFiles(cache)[0] as string);
    const size = statSync(file).size;
    writeFileSync(file, Buffer.alloc(size, 7));
    const broken = run(cache);
    expect(broken.stderr).toContain(`compile cache: rejected, written at exit: ${file}`);
    expect({ code: broken.code, stdout: broken.stdout }).toEqual(expected);
    expect(run(cache).stderr).toContain(`compile cache: used ${file}`);
  });

  test("a cache folder that cannot be made costs the compile, nothing else", () => {
    const blocked = join(dir, "not-a-folder");
    writeFileSync(blocked, "a file where the cache folder would go\n");
    const r = run(join(blocked, "kvgate"));
    expect(r.stderr).toContain("compile cache: absent");
    expect({ code: r.code, stdout: r.stdout }).toEqual(expected);
    expect(run(join(blocked, "kvgate")).stderr).toContain("compile cache: absent");
  });

  test.runIf(IS_ROOT)("a cache file another user owns is never loaded", () => {
    const cache = join(dir, "c");
    run(cache);
    const file = join(cache, cacheFiles(cache)[0] as string);
    chownSync(file, 65534, 65534);
    const r = run(cache);
    expect(r.stderr).not.toContain("compile cache: used");
    expect(r.stderr).toContain(`compile cache: absent, written at exit: ${file}`);
    expect({ code: r.code, stdout: r.stdout }).toEqual(expected);
    // Replaced by this user's own.
    expect(statSync(file).uid).toBe(0);
  });
});
