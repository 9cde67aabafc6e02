// A compose env_file of any name (`conf/chat.vars`, `env/chat`): found before the fleet is read, so the
// loader reads it (the listing holds only the globs' *.env files) and the seat is sized from it; a
// malformed one is a finding at its line, never a crash, never skipped.
import { describe, expect, test } from "vitest";
import { envFileTargets } from "../../src/compose/env-file-targets.js";
import { runCase } from "../helpers/rule-tester.js";

const INVENTORY = "version: 1\nfleet:\n  hosts:\n    gpu-box: { gpus: [ { index: 0, total: 24564MiB } ] }\n";
const compose = (envFile: string) =>
  [
    "services:",
    "  chat:",
    "    image: vllm/vllm-openai:v0.10.2",
    `    env_file: ${envFile}`,
    '    deploy: { resources: { reservations: { devices: [ { driver: nvidia, device_ids: ["0"], capabilities: [gpu] } ] } } }',
    "",
  ].join("\n");
const VARS = `MODEL=Qwen/Qwen3-1.7B\nMAX_MODEL_LEN=32768\nKV_CACHE_MEMORY_BYTES=1610612736\nSERVE_ARGS="--override-generation-config '{\\"max_new_tokens\\":1024}'"\n`;

describe("envFileTargets", () => {
  test("a path, a list, { path } items, relative to the compose file; never a variable or a path out of the repository", () => {
    const text = [
      "services:",
      "  a: { env_file: conf/a.vars }",
      "  b:",
      "    env_file: [ ../shared/b, { path: ./c.conf, required: false } ]",
      "  c: { env_file: '${ENV_DIR}/c.vars' }",
      "  d: { env_file: ../../../outside }",
      "  e: { image: x }",
      "",
    ].join("\n");
    expect(envFileTargets("hosts/gpu-box/compose.yaml", text)).toEqual([
      "hosts/gpu-box/conf/a.vars",
      "hosts/shared/b",
      "hosts/gpu-box/c.conf",
    ]);
  });

  test("a file that is not YAML, or has no services map, names nothing (the compose reader reports it)", () => {
    expect(envFileTargets("compose.yaml", "services: [\n  env_file: x\n")).toEqual([]);
    expect(envFileTargets("compose.yaml", "env_file: x\n")).toEqual([]);
    expect(envFileTargets("compose.yaml", "services:\n  a: { image: x }\n")).toEqual([]);
  });
});

describe("a compose env_file not named *.env, through the gate", () => {
  test("is read: the seat is sized from it, and its short pin refused at its line", async () => {
    const found = await runCase({
      name: "vars",
      files: { "kvgate.yaml": INVENTORY, "compose.yaml": compose("conf/chat.vars"), "conf/chat.vars": VARS },
    });
    const errors = found.filter((f) => f.severity === "error");
    expect(errors.map((f) => [f.rule, f.file, f.line])).toEqual([["kv/covers-context", "conf/chat.vars", 3]]);
    expect(errors[0]?.message).toContain("KV pin 1.5 GiB < required 4.5 GiB");
    expect(found.map((f) => f.rule)).not.toContain("compose/unresolved");
  });

  test("a malformed one is a finding at its file and line", async () => {
    const bad = VARS.replace("MAX_MODEL_LEN=32768", "MAX_MODEL_LEN 32768");
    const found = await runCase({
      name: "bad",
      files: { "kvgate.yaml": INVENTORY, "compose.yaml": compose("conf/chat.vars"), "conf/chat.vars": bad },
    });
    expect(found.find((f) => f.rule === "compose/parse")).toMatchObject({
      file: "conf/chat.vars",
      line: 2,
      severity: "error",
      message: expect.stringContaining("line 2 of conf/chat.vars is not KEY=VALUE"),
    });
  });
});
