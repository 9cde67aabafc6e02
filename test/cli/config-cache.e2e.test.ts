// The built CLI keeps each kvgate.yaml it validated (src/cli/config-cache.ts), by its text: a later run
// with the same text takes the config from there instead of parsing it, a broken config is never
// kept, a broken cache file is ignored, and none of it changes what kvgate says.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { kvgate, ROOT } from "../helpers/cli.js";
import { makeRepo } from "../helpers/repo.js";

const FLEET = join(ROOT, "examples", "fleet");
const ARGS = ["check", "--all", "--repo", FLEET, "--format", "json"];

let dir: string;
let expected: { code: number | null; stdout: string };

function run(
  cacheDir: string,
  args = ARGS,
  cwd = ROOT,
  extra: Record<string, string> = {},
): { code: number | null; stdout: string; stderr: string } {
  const r = kvgate(args, { cwd, env: { KVGATE_CACHE_DIR: cacheDir, ...extra } });
  return { code: r.code, stdout: r.stdout.replace(/"duration_ms":\s*\d+/g, '"duration_ms":0'), stderr: r.stderr };
}

/** The cache's entries: [key, config JSON] pairs, from its one file. */
function entries(cacheDir: string): { file: string; list: [string, string][] } {
  const files = readdirSync(cacheDir).filter((f) => /^configs-[0-9a-f]{16}\.json$/.test(f));
  expect(files).toHaveLength(1);
  const file = join(cacheDir, files[0] as string);
  return { file, list: JSON.parse(readFileSync(file, "utf8")) as [string, string][] };
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "kvgate-config-cache-"));
  const plain = run(join(dir, "off"), ARGS, ROOT, { KVGATE_COMPILE_CACHE: "0" });
  expected = { code: plain.code, stdout: plain.stdout };
  expect(plain.stdout).toContain('"findings"');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("the config cache", () => {
  test("off with the compile cache (KVGATE_COMPILE_CACHE=0): nothing written", () => {
    expect(() => readdirSync(join(dir, "off"))).toThrow();
  });

  test("written by the first run, read by the next: the same output both times", () => {
    const cache = join(dir, "a");
    const first = run(cache);
    const { list } = entries(cache);
    expect(list).toHaveLength(1);
    expect(JSON.parse(list[0]?.[1] as string)).toHaveProperty("fleet.hosts");
    const second = run(cache);
    expect({ code: first.code, stdout: first.stdout }).toEqual(expected);
    expect({ code: second.code, stdout: second.stdout }).toEqual(expected);
  });

  test("a later run takes the config from the cache, not from parsing the file (shown by a changed entry)", () => {
    const cache = join(dir, "b");
    run(cache);
    const { file, list } = entries(cache);
    const [key, json] = list[0] as [string, string];
    const config = JSON.parse(json) as { kv?: { factor?: number } };
    // Not what examples/fleet's kvgate.yaml says: the run's numbers change only if the cache is read.
    writeFileSync(file, JSON.stringify([[key, JSON.stringify({ ...config, kv: { ...config.kv, factor: 3 } })]]));
    const tampered = run(cache);
    expect(tampered.stdout).not.toEqual(expected.stdout);
    expect(tampered.stdout).toContain('"factor": 3');
  });

  test("a broken cache file is ignored and rewritten", () => {
    const cache = join(dir, "c");
    run(cache);
    const { file } = entries(cache);
    writeFileSync(file, "{ not json");
    const r = run(cache);
    expect({ code: r.code, stdout: r.stdout }).toEqual(expected);
    expect(entries(cache).list).toHaveLength(1);
    writeFileSync(file, JSON.stringify({ not: "a list" }));
    expect({ code: run(cache).code, stdout: run(cache).stdout }).toEqual(expected);
  });

  test("a config that does not validate is never kept: reported every run, and a fixed one is kept", async () => {
    const cache = join(dir, "d");
    const repo = await makeRepo();
    repo.write("kvgate.yaml", "kv:\n  factor: high\n");
    for (let i = 0; i < 2; i++) {
      const r = run(cache, ["check", "--all"], repo.dir);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain("kvgate.yaml has 1 problem");
      expect(r.stderr).toMatch(/kv\.factor/);
    }
    expect(readdirSync(cache).filter((f) => f.startsWith("configs-"))).toEqual([]);
    repo.write("kvgate.yaml", "kv:\n  factor: 2\n");
    expect(run(cache, ["check", "--all"], repo.dir).code).toBe(0);
    expect(entries(cache).list.map(([, c]) => JSON.parse(c) as unknown)).toEqual([{ kv: { factor: 2 } }]);
    await repo.cleanup();
  });
});
