// A realistic compose file for two vLLM seats, read and laid over the committed env files with the
// playbook overlay, then built into services with the real rules pack: the sizing settings come out
// at the compose file's lines, as the sizing rules will report them.
import { describe, expect, test } from "vitest";
import { readCompose } from "../../src/compose/index.js";
import { deployedEnv } from "../../src/playbook/overlay.js";
import { parseEnv } from "../../src/parse/env.js";
import { buildService } from "../../src/model/build.js";
import { pack, policyOf } from "../kv/fixtures.js";
import { lines } from "./helpers.js";

const CF = "hosts/fv-ml1/compose.yaml";
const compose = lines(
  "name: fv-ml1", //                                            1
  "x-vllm: &vllm", //                                           2
  "  image: vllm/vllm-openai:${VLLM_TAG:-v0.10.2}", //          3
  "  restart: unless-stopped", //                               4
  "  ipc: host", //                                             5
  "  volumes:", //                                              6
  "    - /srv/models:/models", //                               7
  "  environment: &hf", //                                      8
  "    HF_HOME: /models", //                                    9
  "services:", //                                               10
  "  coder:", //                                                11
  "    <<: *vllm", //                                           12
  "    container_name: vllm-coder", //                          13
  "    env_file:", //                                           14
  "      - ../../scripts/coder.env", //                         15
  "    command:", //                                            16
  "      - Qwen/Qwen3-8B", //                                   17
  "      - --max-model-len", //                                 18
  '      - "32768"', //                                         19
  "      - --kv-cache-memory-bytes", //                         20
  "      - 8589934592", //                                      21
  "      - --gpu-memory-utilization", //                        22
  '      - "0.45"', //                                          23
  "    ports: ['8001:8000']", //                                24
  "    deploy:", //                                             25
  "      resources:", //                                        26
  "        reservations:", //                                   27
  "          devices:", //                                      28
  "            - driver: nvidia", //                            29
  "              device_ids: ['1']", //                         30
  "              capabilities: [gpu]", //                       31
  "  vllm-voices:", //                                          32
  "    <<: *vllm", //                                           33
  "    environment:", //                                        34
  "      <<: *hf", //                                           35
  "      ENGINE: vllm", //                                      36
  "      VLLM_ALLOW_LONG_MAX_MODEL_LEN: ${LONG:-0}", //         37
  "    command: >", //                                          38
  "      --model Qwen/Qwen3-4B", //                             39
  "      --max-model-len ${VOICES_LEN}", //                     40
  "      --kv-cache-memory-bytes 8G", //                        41
  "    gpus:", //                                               42
  "      - device_ids: ['0']", //                               43
);
const files = {
  [CF]: compose,
  "hosts/fv-ml1/.env": "VOICES_LEN=40960\n",
  "scripts/coder.env": lines(
    "ENGINE=vllm",
    "HOST=fv-ml1",
    "GPU=0",
    "MODEL=Qwen/Qwen3-8B",
    'SERVE_ARGS="--max-model-len 16384 --kv-cache-memory-bytes 4G"',
  ),
  "scripts/voices.env": lines(
    "ENGINE=vllm",
    "HOST=fv-ml1",
    "GPU=1",
    "MODEL=Qwen/Qwen3-4B",
    "MAX_MODEL_LEN=32768",
    "KV_CACHE_MEMORY_BYTES=6G",
  ),
};
const services = new Map([
  ["coder", "scripts/coder.env"],
  ["voices", "scripts/voices.env"],
]);
const r = readCompose(CF, new Map(Object.entries(files)), { services });
const committed = (name: "coder" | "voices") => parseEnv(files[`scripts/${name}.env`], `scripts/${name}.env`);
const deploy = (name: string) => {
  const d = r.deploys.find((x) => x.service === name);
  if (!d) throw new Error(`no deploy of ${name}`);
  return d;
};

test("two deploys, matched by the env file it loads and by the container's name, nothing unresolved", () => {
  expect(r.problems).toEqual([]);
  expect(r.deploys.map((d) => [d.composeService, d.service, d.envFile, d.matchedBy, d.line])).toEqual([
    ["coder", "coder", "scripts/coder.env", "env_file", 11],
    ["vllm-voices", "voices", "scripts/voices.env", "key", 32],
  ]);
  expect(r.files).toEqual([CF, "hosts/fv-ml1/.env", "scripts/coder.env"]);
});

describe("coder: list command over the env file it loads", () => {
  const env = deployedEnv(deploy("coder"), committed("coder"));
  const entry = (k: string) => {
    const e = env.entries.get(k);
    return e ? [e.value, e.line, e.file ?? env.file] : null;
  };

  test("the env file stays the base; the compose values are laid over it at their lines", () => {
    expect(env.file).toBe("scripts/coder.env");
    expect(entry("ENGINE")).toEqual(["vllm", 1, "scripts/coder.env"]);
    expect(entry("GPU")).toEqual(["1", 30, CF]);
    expect(entry("HF_HOME")).toEqual(["/models", 9, CF]);
    expect(entry("IMAGE")).toEqual(["vllm/vllm-openai:v0.10.2", 3, CF]);
    // The container's command replaces the env file's SERVE_ARGS: those flags are not what runs.
    expect(entry("SERVE_ARGS")).toBeNull();
    expect(env.flags.map((f) => [f.name, f.value, f.line, f.file])).toEqual([
      ["--max-model-len", "32768", 18, CF],
      ["--kv-cache-memory-bytes", "8589934592", 20, CF],
      ["--gpu-memory-utilization", "0.45", 22, CF],
    ]);
    // vLLM's image runs `vllm serve` as its entrypoint: the command's first word is the model it serves.
    expect(env.positionals.map((p) => [p.word, p.line])).toEqual([
      ["vllm", 17],
      ["serve", 17],
      ["Qwen/Qwen3-8B", 17],
    ]);
    expect(env.problems).toEqual([]);
  });

  test("built with the rules pack: the sizing settings are read at the compose lines", () => {
    const s = buildService(env, pack, policyOf(), "coder");
    expect([s.engine, s.host, s.gpus, s.model]).toEqual(["vllm", "fv-ml1", [1], "Qwen/Qwen3-8B"]);
    expect(s.origins.gpus).toMatchObject({ file: CF, line: 30 });
    const at = (name: string) => [s.settings[name]?.value, s.settings[name]?.origin.file, s.settings[name]?.origin.line];
    expect(at("max_model_len")).toEqual([32768, CF, 18]);
    expect(at("kv_pin")).toEqual([8589934592, CF, 20]);
    expect(at("gpu_memory_utilization")).toEqual([0.45, CF, 22]);
    expect(s.invalid).toEqual([]);
  });
});

test("the image's entrypoint serves the command's first word: model and engine read without MODEL or ENGINE", () => {
  const bare = parseEnv(lines("HOST=fv-ml1", "GPU=0"), "scripts/coder.env");
  const s = buildService(deployedEnv(deploy("coder"), bare), pack, policyOf(), "coder");
  expect([s.engine, s.model, s.origins.model?.file, s.origins.model?.line]).toEqual(["vllm", "Qwen/Qwen3-8B", CF, 17]);
});

describe("vllm-voices: folded string command, gpus:, a value from the .env", () => {
  const env = deployedEnv(deploy("voices"), committed("voices"));

  test("flags at the line each is written on; the .env gives --max-model-len", () => {
    expect(env.flags.map((f) => [f.name, f.value, f.line, f.file])).toEqual([
      ["--model", "Qwen/Qwen3-4B", 39, CF],
      ["--max-model-len", "40960", 40, CF],
      ["--kv-cache-memory-bytes", "8G", 41, CF],
    ]);
    expect(env.entries.get("GPU")).toMatchObject({ value: "0", line: 43, file: CF });
    expect(env.entries.get("VLLM_ALLOW_LONG_MAX_MODEL_LEN")).toMatchObject({ value: "0", line: 37, file: CF });
    expect(env.entries.get("ENGINE")).toMatchObject({ value: "vllm", line: 36, file: CF });
  });

  test("the flags win over the env file's keys, so the deploy sizes the compose values", () => {
    const s = buildService(env, pack, policyOf(), "voices");
    expect(s.gpus).toEqual([0]);
    expect([s.settings.max_model_len?.value, s.settings.max_model_len?.origin.line]).toEqual([40960, 40]);
    // 8G is vLLM's binary G (8 × 2^30), as vLLM itself parses the flag.
    expect([s.settings.kv_pin?.value, s.settings.kv_pin?.origin.line]).toEqual([8 * 2 ** 30, 41]);
    expect(s.invalid).toEqual([]);
  });
});
