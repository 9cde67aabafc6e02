import { expect } from "vitest";
import { engineBadValue } from "../../../src/checks/engine-bad-value.js";
import { ruleTester } from "../../helpers/rule-tester.js";
import { literally } from "../fixtures.js";

const seat = (line: string) => ({ "scripts/v.env": `ENGINE=vllm\nMODEL=Qwen/Qwen3-8B\n${line}\n` });

export default ruleTester(engineBadValue, {
  valid: [
    {
      name: "vLLM's own forms pass: 22G, 32K, plain bytes; the gate's env keys take IEC strings",
      files: { "scripts/v.env": 'ENGINE=vllm\nSERVE_ARGS="--kv-cache-memory-bytes 22G --max-model-len 32K"\nKV_CACHE_MEMORY_BYTES=22GiB\n' },
    },
  ],
  invalid: [
    ['SERVE_ARGS="--kv-cache-memory-bytes 22GiB"', "--kv-cache-memory-bytes"],
    ['SERVE_ARGS="--kv-cache-memory-bytes 22GB"', "--kv-cache-memory-bytes"],
    ['SERVE_ARGS="--max-model-len 22.5G"', "--max-model-len"],
    ["MAX_MODEL_LEN=-4096", "MAX_MODEL_LEN"],
    ["GPU_MEMORY_UTILIZATION=1.5", "GPU_MEMORY_UTILIZATION"],
  ].map(([line = "", name = ""]) => ({ name: `${line} is refused`, files: seat(line), findings: [{ line: 3, message: expect.stringMatching(new RegExp(`^v: ${literally(name)}: `)) }] })),
});
