// A systemd unit's EnvironmentFile= and docker run --env-file name a host path; the repository's file
// whose path is the longest tail of it is read, whatever its name (`conf/chat.conf`, not only *.env):
// the seat is sized from it, and a malformed one is a finding at its line, never skipped.
import { describe, expect, test } from "vitest";
import { runCase } from "../helpers/rule-tester.js";

const INVENTORY = "version: 1\nfleet:\n  hosts:\n    gpu-box: { gpus: [ { index: 0, total: 24564MiB } ] }\n";
const UNIT = [
  "[Service]",
  "EnvironmentFile=/opt/fleet/ops/conf/chat.conf",
  `ExecStart=/usr/bin/docker run --gpus device=0 --env-file /opt/fleet/ops/conf/chat.conf vllm/vllm-openai:v0.10.2 --model Qwen/Qwen3-1.7B --kv-cache-memory-bytes 4831838208 --override-generation-config '{"max_new_tokens":1024}'`,
  "",
].join("\n");
const files = (conf: string) => ({ "kvgate.yaml": INVENTORY, "ops/vllm-chat.service": UNIT, "ops/conf/chat.conf": conf });

describe("a unit's EnvironmentFile of any name", () => {
  test("is read: with the operator's own script as ExecStart, its MAX_MODEL_LEN sizes the seat, refused at the pin when short", async () => {
    // The script reads the conf file (kvgate cannot see inside it): the conf's keys are the seat's settings.
    const script = (conf: string) => ({
      ...files(conf),
      "ops/vllm-chat.service": UNIT.replace(/ExecStart=.*/, "ExecStart=/opt/fleet/bin/serve-chat"),
    });
    const conf = (len: number) => `ENGINE=vllm\nGPU=0\nMODEL=Qwen/Qwen3-1.7B\nMAX_MODEL_LEN=${len}\nKV_CACHE_MEMORY_BYTES=4831838208\n`;
    const cap = `VLLM_EXTRA_ARGS="--override-generation-config '{\\"max_new_tokens\\":1024}'"\n`;
    expect((await runCase({ name: "fits", files: script(conf(32768) + cap) })).filter((f) => f.severity === "error")).toEqual([]);
    const found = await runCase({ name: "short", files: script(`HF_HOME=/data/hf\n${conf(40960)}${cap}`) });
    const errors = found.filter((f) => f.severity === "error");
    expect(errors.map((f) => [f.rule, f.file])).toEqual([["kv/covers-context", "ops/conf/chat.conf"]]);
    expect(errors[0]?.message).toContain("< required 5.5 GiB = ceil(1.25 × 40,960 tokens");
    expect(found.map((f) => f.rule)).not.toContain("systemd/unresolved");
  });

  test("docker run of vLLM's image: the conf reaches the container, whose vllm serve reads no MAX_MODEL_LEN (the model's 40,960 is sized)", async () => {
    // 1.25 × 40,960 tokens of Qwen3-1.7B → 5.5 GiB required; the 4.5 GiB pin is short whatever the conf says.
    for (const len of [32768, 40960]) {
      const errors = (await runCase({ name: `conf ${len}`, files: files(`MAX_MODEL_LEN=${len}\n`) })).filter((f) => f.severity === "error");
      expect(errors.map((f) => [f.rule, f.file, f.line])).toEqual([["kv/covers-context", "ops/vllm-chat.service", 3]]);
      expect(errors[0]?.message).toContain("< required 5.5 GiB = ceil(1.25 × 40,960 tokens");
    }
  });

  test("a malformed one is a finding at its file and line (systemd/parse: docker refuses the line too)", async () => {
    const found = await runCase({ name: "bad", files: files("MAX_MODEL_LEN 32768\n") });
    expect(found.filter((f) => f.file === "ops/conf/chat.conf" && f.line === 1 && f.severity === "error").map((f) => f.rule)).toEqual([
      "systemd/parse",
    ]);
  });

  test("a host path the repository has no tail of stays unresolved (a notice naming it)", async () => {
    const found = await runCase({
      name: "elsewhere",
      files: { "kvgate.yaml": INVENTORY, "ops/vllm-chat.service": UNIT.replaceAll("/opt/fleet/ops/conf/chat.conf", "/etc/vllm/chat.conf") },
    });
    expect(found.find((f) => f.rule === "systemd/unresolved")?.message).toContain(
      "EnvironmentFile=/etc/vllm/chat.conf is not in the repository",
    );
  });
});
