// The precedence of model facts (contract section 13): kvgate.yaml, then a committed config.json,
// then the catalog; config.json matched by folder, by _name_or_path, or named with MODEL_CONFIG.
import { describe, expect, test } from "vitest";
import { folderModelId, modelSourceOf } from "../../src/kv/model-source.js";
import { configText } from "./config-fixtures.js";
import { pack, policyOf, seat } from "./fixtures.js";

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
