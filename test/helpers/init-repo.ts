// The repositories the `kvgate init` tests commit in: a fleet with one radiance env file, init run as
// the built CLI, and the assertions every path shares (a refused commit names kvgate's finding and
// leaves no commit). Each test file calls useInitRepos() once for cleanup.
import { afterEach, expect } from "vitest";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { makeRepo, type TempRepo } from "./repo.js";
import { kvgate, ROOT } from "./cli.js";
import { commitCount, gitCommit } from "./install.js";

export const GOOD = "ENGINE=radiance\nHOST=fv-ml1\nGPU=0\nGPU_HEADROOM_MIB=64\n";
// radiance 1.9 removed --vram-kv-mib: engine/removed-flag, an error.
export const BAD = GOOD + 'SERVE_ARGS="--vram-kv-mib 4096"\n';
export const RUNNER = join(ROOT, "bin", "kvgate-hook");

const made: { cleanup(): Promise<void> | void }[] = [];
export function useInitRepos(): void {
  afterEach(async () => {
    for (const r of made.splice(0)) await r.cleanup();
  });
}

export async function userRepo(files: Record<string, string> = { "scripts/r.env": GOOD }): Promise<TempRepo> {
  const r = await makeRepo();
  made.push(r);
  for (const [p, t] of Object.entries(files)) r.write(p, t);
  return r;
}

export function scratch(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push({ cleanup: () => rmSync(dir, { recursive: true, force: true }) });
  return dir;
}

export function init(r: TempRepo, env: Record<string, string | undefined> = {}, args: string[] = []) {
  return kvgate(["init", ...args], { cwd: r.dir, env });
}

/** The host's cards as `nvidia-smi --query-gpu=index,name,memory.total --format=csv` prints them, in a
 *  file outside the repository: what `kvgate init --from-host FILE` reads. */
export function hostCsv(cards = 2, name = "NVIDIA H100 80GB HBM3", mib = 81559): string {
  const file = join(mkdtempSync(join(tmpdir(), "kvgate-gpus-")), "gpus.csv");
  const lines = Array.from({ length: cards }, (_, i) => `${i}, ${name}, ${mib} MiB`);
  writeFileSync(file, ["index, name, memory.total [MiB]", ...lines, ""].join("\n"));
  return file;
}

/** A script hook that leaves a mark when git runs it (and passes). */
export function markingHook(r: TempRepo, path: string, mark: string): void {
  r.write(path, `#!/bin/sh\necho "$0 $*" >> "${join(r.dir, mark)}"\ncat > /dev/null\n`);
  chmodSync(join(r.dir, path), 0o755);
}

/** After init, commit its files with the hooks skipped (the setup commit), then stage `text` as r.env. */
export function setUp(r: TempRepo, text: string): void {
  r.stage();
  const setup = gitCommit(r, "kvgate init", {}, ["--no-verify"]);
  expect(setup.code, setup.out).toBe(0);
  r.write("scripts/r.env", text);
  r.stage();
}

export function expectRefused(r: TempRepo, res: { code: number | null; out: string }, before: number): void {
  expect(res.code, res.out).not.toBe(0);
  expect(res.out).toContain("engine/removed-flag");
  expect(res.out).toMatch(/scripts\/r\.env:5 error/);
  expect(res.out).toContain("REFUSED");
  expect(commitCount(r)).toBe(before);
}
