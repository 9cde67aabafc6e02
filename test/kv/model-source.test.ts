// The precedence of model facts (contract section 13): kvgate.yaml, then a committed config.json,
// then the catalog; config.json matched by folder, by _name_or_path, or named with MODEL_CONFIG.
import { describe, expect, test } from "vitest";
import { folderModelId, modelSourceOf } from "../../src/kv/model-source.js";
import { configText } from "./config-fixtures.js";
import { pack, policyOf, seat } from "./fixtures.js";
import { runCase } from "../helpers/rule-tester.js";

const qwen = configText("qwen3-8b");
const files = (entries: Record<string, string>) =>
  Object.fromEntries(Object.entries(entries).map(([p, text]) => [p, { text, problem: null }]));

describe("where a seat's model facts come from", () => {
  test("models/<org>/<name>/config.json names org/name; models/<name>/config.json names name", () => {
    expect(folderModelId("models/Qwen/Qwen3-8B/config.json")).toBe("Qwen/Qwen3-8B");
    expect(folderModelId("models/qwen3/config.json")).toBe("qwen3");
    expect(folderModelId("vendor/Qwen3-8B/config.json")).toBeNull();
  });

  test("a committed config.json beats the catalog; its weights come from the safetensors index beside it", () => {
    const state = {
      modelFiles: files({
        "models/Qwen/Qwen3-8B/config.json": qwen,
        "models/Qwen/Qwen3-8B/model.safetensors.index.json": '{"metadata":{"total_size":16381470720}}',
      }),
    };
    const r = modelSourceOf(seat("q", { MODEL: "Qwen/Qwen3-8B" }), state, policyOf(), pack);
    expect(r).toMatchObject({
      ok: true,
      source: {
        from: "config.json",
        file: "models/Qwen/Qwen3-8B/config.json",
        weightsVia: "metadata.total_size 16381470720",
        spec: { layers: 36, kv_heads: 8, head_dim: 128, weights_bytes: 16_381_470_720 },
      },
    });
  });

  test("a local path ending in the folder's id matches", () => {
    const state = { modelFiles: files({ "models/Qwen/Qwen3-8B/config.json": qwen }) };
    expect(modelSourceOf(seat("q", { MODEL: "/srv/models/Qwen/Qwen3-8B/" }), state, policyOf(), pack)).toMatchObject({
      ok: true,
      source: { from: "config.json" },
    });
  });

  test("kvgate.yaml's models beat a committed config.json", () => {
    const policy = policyOf({
      models: { "Qwen/Qwen3-8B": { layers: 18, kv_heads: 8, head_dim: 128, max_context: 40960, weights: "16GiB" } },
    });
    const state = { modelFiles: files({ "models/Qwen/Qwen3-8B/config.json": qwen }) };
    expect(modelSourceOf(seat("q", { MODEL: "Qwen/Qwen3-8B" }), state, policy, pack)).toMatchObject({
      ok: true,
      source: { from: "kvgate.yaml", spec: { layers: 18 } },
    });
  });

  test("no config.json: the catalog; an unknown model: no source", () => {
    expect(modelSourceOf(seat("q", { MODEL: "Qwen/Qwen3-8B" }), {}, policyOf(), pack)).toMatchObject({
      ok: true,
      source: { from: "catalog" },
    });
    expect(modelSourceOf(seat("q", { MODEL: "nobody/nothing" }), {}, policyOf(), pack)).toEqual({ ok: true, source: null });
  });

  test("MODEL_CONFIG naming a path the repository lacks is a problem, not a fallback to the catalog", () => {
    const r = modelSourceOf(seat("q", { MODEL: "Qwen/Qwen3-8B", MODEL_CONFIG: "cfg/qwen.json" }), { modelFiles: {} }, policyOf(), pack);
    expect(r).toMatchObject({
      ok: false,
      problem: {
        field: "MODEL_CONFIG",
        message: "MODEL_CONFIG names cfg/qwen.json, which the repository does not hold (kvgate reads files named config.json)",
      },
    });
  });
});

describe("kvgate.yaml models: merged field by field over the catalog's entry", () => {
  test("an entry that corrects the weights keeps the catalog's layer kinds and measured overhead, and says what it overrode", () => {
    const policy = policyOf({ models: { "openai/gpt-oss-120b": { weights: "64.4GiB" } } });
    const r = modelSourceOf(seat("o", { MODEL: "openai/gpt-oss-120b" }), {}, policy, pack);
    expect(r).toMatchObject({
      ok: true,
      source: {
        from: "kvgate.yaml",
        overridden: ["weights"],
        weightsVia: "weights in kvgate.yaml",
        spec: { layer_pattern: "SF", overhead: "7.5GiB" },
      },
    });
    if (!r.ok || !r.source) throw new Error("no source");
    expect(Math.abs(r.source.spec.weights_bytes - 64.4 * 2 ** 30)).toBeLessThan(1);
    expect(r.source.facts.layerKinds.filter((k) => k === "sliding")).toHaveLength(18);
    expect(r.source.facts.overheadBytes).toBe(7.5 * 2 ** 30);
  });

  test("the seat's findings name the fields it overrode", async () => {
    const findings = await runCase({
      name: "override",
      files: {
        "kvgate.yaml":
          "fleet: { hosts: { h: { gpus: [ { index: 0, name: H100-SXM5-80GB } ] } } }\nmodels: { openai/gpt-oss-120b: { weights: 76GiB } }\n",
        "scripts/o.env": "ENGINE=vllm\nMODEL=openai/gpt-oss-120b\nHOST=h\nGPU=0\nVLLM_VERSION=0.11.0\n",
      },
    });
    const covers = findings.find((f) => f.rule === "kv/covers-context");
    expect(covers?.data).toMatchObject({ model_overrides: ["weights"] });
  });

  test("an entry for a model the catalog lacks needs layers, max_context and weights, else the seat is not sized from a guess", () => {
    const policy = policyOf({ models: { "acme/tiny": { layers: 4, kv_heads: 2, head_dim: 64 } } });
    expect(modelSourceOf(seat("t", { MODEL: "acme/tiny" }), {}, policy, pack)).toMatchObject({
      ok: false,
      problem: {
        file: "kvgate.yaml",
        field: "models.acme/tiny.max_context",
        message: expect.stringContaining("lacks max_context, weights"),
      },
    });
  });
});
