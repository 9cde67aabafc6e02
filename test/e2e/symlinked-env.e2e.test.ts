// A service's env file committed as a symlink (to a host path, say /etc/fleet/chat.env) is not read:
// the door follows no link. Found by an operator-style trial: the seat vanished from the fleet and the
// run passed. It is env/parse's error at the file, staged and under --all; the same file committed
// whole is read (and here refused for what it says).
import { afterEach, describe, expect, test } from "vitest";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { makeRepo, type TempRepo } from "../helpers/repo.js";
import { kvgate, type JsonFinding } from "../helpers/cli.js";

const made: TempRepo[] = [];
const outside: string[] = [];
afterEach(async () => {
  for (const r of made.splice(0)) await r.cleanup();
  for (const d of outside.splice(0)) rmSync(d, { recursive: true, force: true });
});

const CONFIG = "version: 1\nfleet:\n  hosts:\n    gpu-a:\n      gpus:\n        - { index: 0, total: 48GiB }\n";
// A 1 GiB pin for 40,960 tokens of Qwen3-8B (7.5 GiB required): what the link hides.
const ENV = "ENGINE=vllm\nHOST=gpu-a\nGPU=0\nMODEL=Qwen/Qwen3-8B\nMAX_MODEL_LEN=40960\nKV_CACHE_MEMORY_BYTES=1G\n";

const findings = (r: TempRepo, args: string[]): { code: number | null; found: JsonFinding[] } => {
  const run = kvgate([...args, "--format", "json"], { cwd: r.dir });
  return { code: run.code, found: (JSON.parse(run.stdout) as { findings: JsonFinding[] }).findings };
};

describe("an env file committed as a symlink", () => {
  test("is env/parse's error at the file (staged and --all), never a smaller fleet that passes", async () => {
    const host = mkdtempSync(join(tmpdir(), "kvgate-host-"));
    outside.push(host);
    writeFileSync(join(host, "chat.env"), ENV);
    const r = await makeRepo();
    made.push(r);
    r.write("kvgate.yaml", CONFIG);
    r.write("README.md", "fleet\n");
    r.stage();
    r.commit("init");
    mkdirSync(join(r.dir, "scripts"));
    symlinkSync(join(host, "chat.env"), join(r.dir, "scripts", "chat.env"));
    r.stage();
    for (const args of [
      ["check", "--staged"],
      ["check", "--all"],
    ]) {
      const { code, found } = findings(r, args);
      expect(code, args.join(" ")).toBe(1);
      expect(found.find((f) => f.rule === "env/parse")).toMatchObject({
        file: "scripts/chat.env",
        line: 1,
        severity: "error",
        service: "chat",
        message: expect.stringContaining("scripts/chat.env is not read (symlink)"),
      });
    }
  });

  test("the twin: the same file committed whole is read and sized (its 1 GiB pin refused)", async () => {
    const r = await makeRepo();
    made.push(r);
    r.write("kvgate.yaml", CONFIG);
    r.write("scripts/chat.env", ENV);
    r.stage();
    const { code, found } = findings(r, ["check", "--staged"]);
    expect(code).toBe(1);
    expect(found.map((f) => f.rule)).not.toContain("env/parse");
    expect(found.find((f) => f.rule === "kv/covers-context")?.data).toMatchObject({ pinned_bytes: 2 ** 30, required_bytes: 7.5 * 2 ** 30 });
  });
});
