import { knobOnePerDeploy } from "../../../src/checks/knob-one-per-deploy.js";
import { ruleTester } from "../../helpers/rule-tester.js";
import { FRANK, frankState, policyOf, radianceCase, service, state } from "../../radiance/fixtures.js";

const VOICES = { ENGINE: "vllm", HOST: "fv-ml1", GPU: "0", MODEL: "Qwen/Qwen3-8B", MAX_MODEL_LEN: "40960", KV_CACHE_MEMORY_BYTES: "8GiB" };
const vllm = (over: Record<string, string | undefined> = {}) => state([service("voices", { ...VOICES, ...over })]);
const change = (name: string, over: Record<string, string>) => radianceCase(name, { before: frankState(), after: frankState(over) });
const knobs = (list: string[]) => ({ data: { knobs: list } });
const { HOST_POOL_MIB: _moved, ...withoutPool } = FRANK;
const vllmChange = vllm({ MAX_MODEL_LEN: "32768", KV_CACHE_MEMORY_BYTES: "6GiB", GPU: "1" });
const enforceVllm = policyOf({ knobs: { enforce: ["vllm"] } });

export default ruleTester(knobOnePerDeploy, {
  valid: [
    change("GPU_HEADROOM_MIB alone", { GPU_HEADROOM_MIB: "48" }),
    change("HOST_POOL_MIB with TTM_MIN_MIB and TTM_TARGET_MIB (derived, not knobs)", {
      HOST_POOL_MIB: "45952",
      TTM_MIN_MIB: "99840",
      TTM_TARGET_MIB: "100864",
    }),
    change("the same value respelled (MAX_MODEL_LEN 24576 → 24K)", { MAX_MODEL_LEN: "24K", GPU_HEADROOM_MIB: "48" }),
    change("a defaulted knob written out (CHECKPOINT_RETAIN unset → 0, PLE_TABLE_MIB 0)", { PLE_TABLE_MIB: "0", HOST_POOL_MIB: "45952" }),
    radianceCase("a value moved from an env key into a flag with the same value, beside one knob", {
      before: frankState(),
      after: state([service("frank-archon", { ...withoutPool, GPU_HEADROOM_MIB: "48" }, { flags: { "--host-pool-mib": "44928" } })], {}),
    }),
    radianceCase("vLLM is not in knobs.enforce by default", { before: vllm(), after: vllmChange }),
    radianceCase("vLLM's utilization at its default 0.92, written out", {
      before: vllm(),
      after: vllm({ GPU_MEMORY_UTILIZATION: "0.92", KV_CACHE_DTYPE: "auto", MAX_MODEL_LEN: "32768" }),
      policy: enforceVllm,
    }),
    radianceCase("a new service", { before: state([]), after: frankState({ GPU_HEADROOM_MIB: "48", HOST_POOL_MIB: "45952" }) }),
    radianceCase("--all", { before: null, after: frankState({ GPU_HEADROOM_MIB: "48", HOST_POOL_MIB: "45952" }) }),
  ],
  invalid: [
    {
      ...change("GPU_HEADROOM_MIB and HOST_POOL_MIB", { GPU_HEADROOM_MIB: "48", HOST_POOL_MIB: "45952" }),
      findings: [knobs(["GPU_HEADROOM_MIB", "HOST_POOL_MIB"])],
    },
    {
      ...change("MAX_SEQS and CHECKPOINT_SLOTS", { MAX_SEQS: "9", CHECKPOINT_SLOTS: "18" }),
      findings: [knobs(["MAX_SEQS", "CHECKPOINT_SLOTS"])],
    },
    { ...change("TP and PREFIX_CACHE_MIB", { TP: "4", PREFIX_CACHE_MIB: "2048" }), findings: [knobs(["PREFIX_CACHE_MIB", "TP"])] },
    {
      ...change("HOST_POOL_MIB and PLACEMENT, beside knob/kv-and-placement", { HOST_POOL_MIB: "45952", PLACEMENT: "static" }),
      findings: [knobs(["HOST_POOL_MIB", "PLACEMENT"])],
    },
    {
      ...change("the changes and the fix", { GPU_HEADROOM_MIB: "48", HOST_POOL_MIB: "45952" }),
      findings: [
        {
          message:
            "2 sizing knobs change in one deploy (GPU_HEADROOM_MIB 96 → 48, HOST_POOL_MIB 44,928 → 45,952): change one knob per deploy; split this into 2 commits and check them with --unit commit",
          line: 6,
          service: "frank-archon",
        },
      ],
    },
    {
      ...radianceCase("vLLM once knobs.enforce lists it", {
        before: vllm(),
        after: vllmChange,
        policy: policyOf({ knobs: { enforce: ["radiance", "vllm"] } }),
      }),
      findings: [knobs(["MAX_MODEL_LEN", "KV_CACHE_MEMORY_BYTES", "GPU"])],
    },
    {
      ...radianceCase("vLLM's utilization against its default 0.92", {
        before: vllm(),
        after: vllm({ GPU_MEMORY_UTILIZATION: "0.5", MAX_MODEL_LEN: "32768" }),
        policy: enforceVllm,
      }),
      findings: [knobs(["MAX_MODEL_LEN", "GPU_MEMORY_UTILIZATION"])],
    },
  ],
});
