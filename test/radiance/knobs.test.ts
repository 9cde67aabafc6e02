import { describe, expect, it } from "vitest";
import { knobOnePerDeploy } from "../../src/checks/knob-one-per-deploy.js";
import { knobKvAndPlacement } from "../../src/checks/knob-kv-and-placement.js";
import { knobChanges } from "../../src/radiance/knobs.js";
import { ctxOf, frank, frankState, ledgerOf, policyOf, pack, run, service, state, FRANK } from "./fixtures.js";

const VOICES = { ENGINE: "vllm", HOST: "fv-ml1", GPU: "0", MODEL: "Qwen/Qwen3-8B", MAX_MODEL_LEN: "40960", KV_CACHE_MEMORY_BYTES: "8GiB" };
const vllm = (over: Record<string, string | undefined> = {}) => state([service("voices", { ...VOICES, ...over })]);
const knobsOf = (r: ReturnType<typeof run>) => r.map((x) => x.data.knobs);

describe("knob/one-per-deploy", () => {
  it.each([
    ["GPU_HEADROOM_MIB alone", { GPU_HEADROOM_MIB: "48" }, []],
    ["HOST_POOL_MIB with TTM_MIN_MIB and TTM_TARGET_MIB (derived, not knobs)", { HOST_POOL_MIB: "45952", TTM_MIN_MIB: "99840", TTM_TARGET_MIB: "100864" }, []],
    ["GPU_HEADROOM_MIB and HOST_POOL_MIB", { GPU_HEADROOM_MIB: "48", HOST_POOL_MIB: "45952" }, [["GPU_HEADROOM_MIB", "HOST_POOL_MIB"]]],
    ["MAX_SEQS and CHECKPOINT_SLOTS", { MAX_SEQS: "9", CHECKPOINT_SLOTS: "18" }, [["MAX_SEQS", "CHECKPOINT_SLOTS"]]],
    ["TP and PREFIX_CACHE_MIB", { TP: "4", PREFIX_CACHE_MIB: "2048" }, [["PREFIX_CACHE_MIB", "TP"]]],
    ["the same value respelled (MAX_MODEL_LEN 24576 → 24K)", { MAX_MODEL_LEN: "24K", GPU_HEADROOM_MIB: "48" }, []],
    ["a defaulted knob written out (CHECKPOINT_RETAIN unset → 0, PLE_TABLE_MIB 0)", { PLE_TABLE_MIB: "0", HOST_POOL_MIB: "45952" }, []],
  ])("%s", (_name, over, expected) => {
    const r = run(knobOnePerDeploy, ctxOf({ before: frankState(), after: frankState(over) }));
    expect(knobsOf(r)).toEqual(expected);
  });

  it("names the changes and the fix", () => {
    const [r] = run(knobOnePerDeploy, ctxOf({ before: frankState(), after: frankState({ GPU_HEADROOM_MIB: "48", HOST_POOL_MIB: "45952" }) }));
    expect(r?.text).toBe(
      "2 sizing knobs change in one deploy (GPU_HEADROOM_MIB 96 → 48, HOST_POOL_MIB 44,928 → 45,952): change one knob per deploy; split this into 2 commits and check them with --unit commit",
    );
    expect(r?.line).toBe(6);
    expect(r?.service).toBe("frank-archon");
  });

  it("does not count a value moved from an env key into a flag with the same value", () => {
    const { HOST_POOL_MIB: _moved, ...rest } = FRANK;
    const after = state([service("frank-archon", { ...rest, SERVE_ARGS: "--host-pool-mib 44928" }, { flags: { "--host-pool-mib": "44928" } })], { "frank-archon": ledgerOf("frank-archon") });
    const a = after.services[0]!;
    expect(a.settings.host_pool_mib?.origin.source).toBe("flag");
    expect(knobChanges(frank(), a, policyOf(), pack)).toEqual([]);
    const moved = state([service("frank-archon", { ...rest, GPU_HEADROOM_MIB: "48" }, { flags: { "--host-pool-mib": "44928" } })], {});
    expect(knobsOf(run(knobOnePerDeploy, ctxOf({ before: frankState(), after: moved })))).toEqual([]);
  });

  it("holds only for the engines in knobs.enforce", () => {
    const before = vllm();
    const after = vllm({ MAX_MODEL_LEN: "32768", KV_CACHE_MEMORY_BYTES: "6GiB", GPU: "1" });
    expect(run(knobOnePerDeploy, ctxOf({ before, after }))).toEqual([]);
    const enforced = policyOf({ knobs: { enforce: ["radiance", "vllm"] } });
    expect(knobsOf(run(knobOnePerDeploy, ctxOf({ before, after, policy: enforced })))).toEqual([["MAX_MODEL_LEN", "KV_CACHE_MEMORY_BYTES", "GPU"]]);
  });

  it("counts vLLM's utilization against its default 0.92", () => {
    const enforced = policyOf({ knobs: { enforce: ["vllm"] } });
    const after = vllm({ GPU_MEMORY_UTILIZATION: "0.92", KV_CACHE_DTYPE: "auto", MAX_MODEL_LEN: "32768" });
    expect(run(knobOnePerDeploy, ctxOf({ before: vllm(), after, policy: enforced }))).toEqual([]);
    const moved = vllm({ GPU_MEMORY_UTILIZATION: "0.5", MAX_MODEL_LEN: "32768" });
    expect(knobsOf(run(knobOnePerDeploy, ctxOf({ before: vllm(), after: moved, policy: enforced })))).toEqual([["MAX_MODEL_LEN", "GPU_MEMORY_UTILIZATION"]]);
  });

  it("does nothing for a new service or under --all", () => {
    const after = frankState({ GPU_HEADROOM_MIB: "48", HOST_POOL_MIB: "45952" });
    expect(run(knobOnePerDeploy, ctxOf({ before: state([]), after }))).toEqual([]);
    expect(run(knobOnePerDeploy, ctxOf({ before: null, after }))).toEqual([]);
  });
});

describe("knob/kv-and-placement", () => {
  it.each([
    ["HOST_POOL_MIB and PLACEMENT", { HOST_POOL_MIB: "45952", PLACEMENT: "static" }, [{ knob: "HOST_POOL_MIB", before: "44,928", after: "45,952" }]],
    ["MAX_SEQS and PLACEMENT", { MAX_SEQS: "9", PLACEMENT: "static" }, [{ knob: "MAX_SEQS", before: "8", after: "9" }]],
    ["PLACEMENT alone", { PLACEMENT: "static" }, null],
    ["PREFIX_CACHE_MIB and PLACEMENT (host RAM, not the KV pool)", { PREFIX_CACHE_MIB: "8192", PLACEMENT: "static" }, null],
  ])("%s", (_name, over, kv) => {
    const r = run(knobKvAndPlacement, ctxOf({ before: frankState(), after: frankState(over), policy: policyOf({ knobs: { enforce: [] } }) }));
    expect(r).toHaveLength(kv ? 1 : 0);
    if (kv) {
      expect(r[0]?.data).toEqual({ kv, placement: { before: "heat", after: "static" } });
      expect(r[0]?.line).toBe(10);
      expect(r[0]?.text).toContain("deploy them separately");
    }
  });

  it("holds whatever knobs.enforce says, alongside knob/one-per-deploy where enforced", () => {
    const ctx = ctxOf({ before: frankState(), after: frankState({ HOST_POOL_MIB: "45952", PLACEMENT: "static" }) });
    expect(run(knobKvAndPlacement, ctx)).toHaveLength(1);
    expect(knobsOf(run(knobOnePerDeploy, ctx))).toEqual([["HOST_POOL_MIB", "PLACEMENT"]]);
  });
});
