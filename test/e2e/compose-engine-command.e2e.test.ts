// A compose service whose command runs vLLM's server itself (the stock image's entrypoint, `vllm
// serve`) reads its settings from that command only: vLLM reads no MAX_MODEL_LEN or
// KV_CACHE_MEMORY_BYTES variable, so a pin given through `environment:` or `env_file` is no pin. Found
// by an operator-style trial: two seats at 0.45 on one L40S, pinned by variables only, passed.
// Through the built CLI on a real repository; the twin whose command is the operator's own script
// (which may read the variables) keeps them.
import { afterEach, describe, expect, test } from "vitest";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { makeRepo, type TempRepo } from "../helpers/repo.js";
import { kvgate, type JsonFinding } from "../helpers/cli.js";

const made: TempRepo[] = [];
afterEach(async () => {
  for (const r of made.splice(0)) await r.cleanup();
});

const CONFIG = "version: 1\nfleet:\n  hosts:\n    box1:\n      gpus:\n        - { index: 0, total: 48GiB, reserve: 1GiB }\n";
// coder: Qwen2.5-Coder-7B at 32,768 tokens needs 1.25 × 32,768 × 57,344 B = 2.24 GiB → 2.5 GiB.
const compose = (command: string, env: string) =>
  [
    "services:",
    "  coder:",
    "    image: vllm/vllm-openai:v0.11.0",
    `    command: ${command}`,
    "    environment:",
    '      NVIDIA_VISIBLE_DEVICES: "0"',
    `      ${env}`,
    "  chat:",
    "    image: vllm/vllm-openai:v0.11.0",
    '    command: ["Qwen/Qwen3-0.6B", "--max-model-len", "8192", "--kv-cache-memory-bytes", "1610612736", "--gpu-memory-utilization", "0.3", "--override-generation-config", \'{"max_new_tokens":1024}\']',
    '    deploy: { resources: { reservations: { devices: [ { driver: nvidia, device_ids: ["0"], capabilities: [gpu] } ] } } }',
    "",
  ].join("\n");
const CODER_ARGS = `["Qwen/Qwen2.5-Coder-7B-Instruct", "--max-model-len", "32768", "--gpu-memory-utilization", "0.45", "--override-generation-config", '{"max_new_tokens":4096}']`;

async function repoWith(composeText: string): Promise<TempRepo> {
  const r = await makeRepo();
  made.push(r);
  r.write("kvgate.yaml", CONFIG);
  r.write("docker-compose.yml", composeText);
  r.stage();
  return r;
}

function check(r: TempRepo): { code: number | null; findings: JsonFinding[] } {
  const run = kvgate(["check", "--staged", "--format", "json"], { cwd: r.dir });
  return { code: run.code, findings: (JSON.parse(run.stdout) as { findings: JsonFinding[] }).findings };
}

describe("a pin given as a variable to a container that runs vllm serve", () => {
  test("is no pin: kv/unpinned-shared-card, with the flag to add to the command; --fix adds it there and the finding goes", async () => {
    const r = await repoWith(compose(CODER_ARGS, 'KV_CACHE_MEMORY_BYTES: "2684354560"'));
    const before = check(r);
    expect(before.code).toBe(1);
    const unpinned = before.findings.find((f) => f.rule === "kv/unpinned-shared-card" && f.service === "coder");
    expect(unpinned?.message).toContain("set --kv-cache-memory-bytes 2684354560 in its command");
    expect(unpinned?.data.fix).toMatchObject({ file: "docker-compose.yml", line: 4, key: "--kv-cache-memory-bytes", into: "command" });

    const fixed = kvgate(["check", "--staged", "--fix"], { cwd: r.dir });
    expect(fixed.stdout).toContain("--kv-cache-memory-bytes");
    const text = readFileSync(join(r.dir, "docker-compose.yml"), "utf8");
    expect(text).toContain(`'{"max_new_tokens":4096}', "--kv-cache-memory-bytes", "2684354560"]`);
    r.stage();
    const after = check(r);
    expect(after.findings.filter((f) => f.severity !== "notice")).toEqual([]);
    expect(after.code).toBe(0);
  });

  test("MAX_MODEL_LEN as a variable does not lower the context vLLM runs at (the model's 32,768)", async () => {
    const args = `["Qwen/Qwen2.5-Coder-7B-Instruct", "--kv-cache-memory-bytes", "1G", "--override-generation-config", '{"max_new_tokens":4096}']`;
    const r = await repoWith(compose(args, 'MAX_MODEL_LEN: "4096"'));
    const kv = check(r).findings.find((f) => f.rule === "kv/covers-context" && f.service === "coder");
    // 1 GiB pinned < 2.5 GiB the model's own 32,768 tokens need (at 4,096 it would have been 0.5 GiB: a pass).
    expect(kv?.data).toMatchObject({ max_model_len: 32768, required_bytes: 2.5 * 2 ** 30, pinned_bytes: 2 ** 30 });
  });

  test("the twin: a command that is the operator's own script keeps the variables it may read", async () => {
    const env = ['MODEL: "Qwen/Qwen2.5-Coder-7B-Instruct"', 'MAX_MODEL_LEN: "32768"', 'KV_CACHE_MEMORY_BYTES: "1G"'].join("\n      ");
    // The stock image's entrypoint would take the script's path as its model: the script is the entrypoint.
    const r = await repoWith(compose('["/opt/serve.sh"]', env).replace('    command: ["/opt', '    entrypoint: ["/opt'));
    const found = check(r).findings;
    expect(found.filter((f) => f.rule === "kv/unpinned-shared-card" && f.service === "coder")).toEqual([]);
    // The variables are read (by the operator's script, as far as kvgate can tell): the 1 GiB pin is the one judged (short of the 2.5 GiB 32,768 tokens need).
    const kv = found.find((f) => f.rule === "kv/covers-context" && f.service === "coder");
    expect(kv?.data).toMatchObject({ max_model_len: 32768, pinned_bytes: 2 ** 30, required_bytes: 2.5 * 2 ** 30 });
    expect(kv?.message).toContain("KV_CACHE_MEMORY_BYTES=2684354560");
  });
});
