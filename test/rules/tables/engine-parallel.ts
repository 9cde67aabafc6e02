import { expect } from "vitest";
import { engineParallel } from "../../../src/checks/engine-parallel.js";
import { ruleTester } from "../../helpers/rule-tester.js";
import { kvCase, seat } from "../../kv/fixtures.js";

// phi-4: 40 attention heads, 10 KV heads. Qwen3-8B: 32 attention heads, 8 KV heads, 36 layers.
const phi4 = (tp: string, gpus: string) =>
  seat("phi", { MODEL: "microsoft/phi-4", GPU: gpus, TP: tp, MAX_MODEL_LEN: "16384", KV_CACHE_MEMORY_BYTES: String(4 * 1024 ** 3) });
const qwen = (env: Record<string, string>) =>
  seat("qwen", { MODEL: "Qwen/Qwen3-8B", MAX_MODEL_LEN: "40960", KV_CACHE_MEMORY_BYTES: String(8 * 1024 ** 3), ...env });

export default ruleTester(engineParallel, {
  valid: [
    kvCase("phi-4 at TP 2: 20 attention and 5 KV heads per card", [phi4("2", "0,1")]),
    kvCase("Qwen3-8B at TP 2", [qwen({ GPU: "0,1", TP: "2" })]),
    kvCase("Qwen3-8B at PP 2: 18 layers per stage", [qwen({ GPU: "0,1", PP: "2" })]),
  ],
  invalid: [
    {
      ...kvCase("phi-4 at TP 4: 10 KV heads neither divisible by 4 nor dividing it (kvgate used to size 2.5 heads)", [phi4("4", "0,1")]),
      findings: [
        {
          message:
            "phi: microsoft/phi-4: 10 KV heads neither divisible by tensor parallel size 4 nor dividing it: vLLM cannot shard them (QKVParallelLinear) and stops at load; use --tensor-parallel-size 2, 5, 10 (or 1)",
          data: { check: "kv-heads", tp: 4, kv_heads: 10, attention_heads: 40 },
          file: "scripts/phi.env",
          line: 5,
        },
      ],
    },
    {
      ...kvCase("Qwen3-8B at TP 3: 32 attention heads and 8 KV heads do not split in 3", [qwen({ GPU: "0,1", TP: "3" })]),
      findings: [
        {
          data: { check: "attention-heads", tp: 3 },
          message: expect.stringContaining("32 attention heads are not divisible by tensor parallel size 3: vLLM refuses to start"),
        },
        { data: { check: "kv-heads", tp: 3 }, message: expect.stringContaining("use --tensor-parallel-size 2, 4, 8, 16 (or 1)") },
      ],
    },
    {
      ...kvCase("PP 40 over Qwen3-8B's 36 layers", [qwen({ PP: "40" })]),
      findings: [{ data: { check: "pp-layers", pp: 40 }, message: expect.stringContaining("use --pipeline-parallel-size 36 or fewer") }],
    },
  ],
});
