import { expect } from "vitest";
import { engineUnknownModel } from "../../../src/checks/engine-unknown-model.js";
import { ruleTester } from "../../helpers/rule-tester.js";
import { readFileSync } from "node:fs";
import { kvCase, policyOf, seat, voices } from "../../kv/fixtures.js";
import { FLEET_H } from "../fixtures.js";

// Through the real loader: the repository's own config.json files.
const NEXT = readFileSync("test/kv/configs/qwen3-next-80b-a3b-instruct.json", "utf8");
const env = (model: string, extra = "") =>
  `ENGINE=vllm\nHOST=h\nGPU=0\nMODEL=${model}\nMAX_MODEL_LEN=32768\nKV_CACHE_MEMORY_BYTES=8G\n${extra}`;

const tiny = policyOf({ models: { "nobody/unknown-1b": { layers: 2, kv_heads: 2, head_dim: 64, max_context: 4096, weights: "1GiB" } } });

export default ruleTester(engineUnknownModel, {
  valid: [
    kvCase("a model of the catalog", [voices()]),
    kvCase("a model kvgate.yaml adds", [seat("x", { MODEL: "nobody/unknown-1b" })], { policy: tiny }),
    {
      name: "a model no catalog knows, from its config.json under models/<org>/<name>/",
      files: { "kvgate.yaml": FLEET_H, "models/acme/next-80b/config.json": NEXT, "scripts/x.env": env("acme/next-80b") },
    },
    {
      name: "matched by the config's _name_or_path, from a local path",
      files: {
        "kvgate.yaml": FLEET_H,
        "models/next/config.json": JSON.stringify({ ...JSON.parse(NEXT), _name_or_path: "acme/next-80b" }),
        "scripts/x.env": env("/srv/models/acme/next-80b"),
      },
    },
    {
      name: "named by MODEL_CONFIG anywhere in the repository",
      files: {
        "kvgate.yaml": FLEET_H,
        "vendor/next/config.json": NEXT,
        "scripts/x.env": env("acme/next-80b", "MODEL_CONFIG=vendor/next/config.json\n"),
      },
    },
    kvCase("an unknown model with KV_BYTES_PER_TOKEN", [seat("x", { MODEL: "nobody/unknown-1b", KV_BYTES_PER_TOKEN: "1000" })]),
  ],
  invalid: [
    {
      ...kvCase("a model the catalog does not know, saying how to add it", [seat("x", { MODEL: "nobody/unknown-1b" })]),
      findings: [{ messageId: "unknown", line: 4, message: expect.stringContaining("add it under models: in kvgate.yaml") }],
    },
    {
      name: "a config.json that is binary is refused at its file",
      files: { "kvgate.yaml": FLEET_H, "models/acme/next-80b/config.json": "{\u0000}", "scripts/x.env": env("acme/next-80b") },
      findings: [
        { messageId: "config", file: "models/acme/next-80b/config.json", line: 1, message: expect.stringContaining("holds a NUL byte") },
      ],
    },
    {
      name: "a config.json without num_hidden_layers is refused, not guessed",
      files: {
        "kvgate.yaml": FLEET_H,
        "models/acme/next-80b/config.json": JSON.stringify({ ...JSON.parse(NEXT), num_hidden_layers: undefined }),
        "scripts/x.env": env("acme/next-80b"),
      },
      findings: [
        { messageId: "config", file: "models/acme/next-80b/config.json", data: { field: expect.stringContaining("num_hidden_layers") } },
      ],
    },
    { ...kvCase("a seat with no model at all", [seat("x", {})]), findings: [{ messageId: "none" }] },
  ],
});
