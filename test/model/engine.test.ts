// The engine adapter: traits read from rules/engines.yaml, never an engine's name in checks or model.
import { describe, expect, test } from "vitest";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { EnginesFile } from "../../src/rules/engines.js";
import {
  extraKnobs,
  holdsGpus,
  kvPoolSettings,
  recogniseEngine,
  settingDefault,
  sizesKvByLedger,
  sizesKvPerSeat,
  tpNeedsCards,
} from "../../src/model/engine.js";
import { parseEnv } from "../../src/parse/env.js";
import { defaultPolicy, pack } from "../helpers/rule-tester.js";

const as = (engine: string | null) => ({ engine });

describe("engine traits from rules/engines.yaml", () => {
  test.each([
    ["vllm", true, true, false, true, ["tp", "gpus"], ["kv_pin"]],
    ["radiance", true, false, true, false, ["tp"], ["gpu_headroom_mib", "host_pool_mib", "max_seqs", "max_model_len"]],
    ["sglang", false, false, false, false, ["tp", "gpus"], []],
    [null, false, false, false, false, ["tp", "gpus"], []],
  ])("%s", (engine, gpus, perSeat, byLedger, tpCards, extra, pool) => {
    expect([
      holdsGpus(pack, as(engine)),
      sizesKvPerSeat(pack, as(engine)),
      sizesKvByLedger(pack, as(engine)),
      tpNeedsCards(pack, as(engine)),
    ]).toEqual([gpus, perSeat, byLedger, tpCards]);
    expect([extraKnobs(pack, engine), kvPoolSettings(pack, engine)]).toEqual([extra, pool]);
  });

  test("a setting's default is a value, or read from the policy", () => {
    const vllm = pack.engines.engines.vllm?.settings;
    expect(settingDefault(vllm?.gpu_memory_utilization ?? { unit: "ratio", description: "" }, defaultPolicy())).toBe(0.92);
    expect(settingDefault(vllm?.kv_cache_dtype ?? { unit: "string", description: "" }, defaultPolicy())).toBe("auto");
    expect(settingDefault(vllm?.max_model_len ?? { unit: "tokens", description: "" }, defaultPolicy())).toBeUndefined();
  });

  test("without ENGINE: the command word or `serve MODEL` names vLLM; nothing else is guessed", () => {
    const env = (text: string) => parseEnv(text, "scripts/x.env");
    expect(recogniseEngine(pack, env('CMD="vllm serve Qwen/Qwen3-8B"\n'))).toMatchObject({
      engine: "vllm",
      by: "command",
      evidence: "CMD runs `vllm serve`",
    });
    expect(recogniseEngine(pack, env('CMD="vllm --help"\n'))).toMatchObject({
      engine: "vllm",
      by: "command",
      evidence: "CMD names `vllm`",
    });
    expect(recogniseEngine(pack, env('CMD="python -m other.server"\n'))).toEqual({
      engine: null,
      by: "none",
      evidence: null,
      origin: null,
    });
  });

  test("the traits are validated: an unknown kv_sizing or recognise key is refused at load", () => {
    const base = { description: "x", settings: {} };
    expect(EnginesFile.safeParse({ engines: { x: { ...base, kv_sizing: "guess" } } }).success).toBe(false);
    expect(EnginesFile.safeParse({ engines: { x: { ...base, recognise: { image: ["a"] } } } }).success).toBe(false);
    const ok = EnginesFile.parse({ engines: { x: { ...base, recognise: { images: ["x/y:*"] } } } });
    expect(ok.engines.x).toMatchObject({
      gpus: false,
      tp_needs_cards: false,
      knobs: { extra: ["tp", "gpus"], kv_pool: [] },
      recognise: { images: ["x/y:*"], commands: [], flags: [] },
    });
  });

  test("rules/engines.yaml gives vLLM's recognition data (images, commands, engine-only flags)", () => {
    expect(pack.engines.engines.vllm?.recognise).toMatchObject({
      images: expect.arrayContaining(["vllm/vllm-openai:*"]),
      commands: expect.arrayContaining(["vllm serve", "python -m vllm.entrypoints.openai.api_server"]),
      flags: expect.arrayContaining(["--gpu-memory-utilization"]),
    });
  });
});

describe("no engine is named in the checks or the model", () => {
  const files = ["src/checks", "src/model"].flatMap((d) =>
    readdirSync(d)
      .filter((f) => f.endsWith(".ts"))
      .map((f) => join(d, f)),
  );
  test.each(files)("%s", (file) => {
    // An engine name as a string literal (`"vllm"`, `'radiance'`); prose in messages is fine.
    expect(readFileSync(file, "utf8").match(/["'`](vllm|radiance)["'`]/g) ?? []).toEqual([]);
  });
});
