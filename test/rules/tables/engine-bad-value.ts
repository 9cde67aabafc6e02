import { expect } from "vitest";
import { engineBadValue } from "../../../src/checks/engine-bad-value.js";
import { ruleTester } from "../../helpers/rule-tester.js";
import { literally } from "../fixtures.js";

const seat = (line: string) => ({
  "scripts/v.env": `ENGINE=vllm\nMODEL=Qwen/Qwen3-8B\n${line}\n`,
});

export default ruleTester(engineBadValue, {
  valid: [
    {
      name: "vLLM's own forms pass: 22G, 32K, plain bytes; the gate's env keys take IEC strings",
      files: {
        "scripts/v.env": 'ENGINE=vllm\nSERVE_ARGS="--kv-cache-memory-bytes 22G --max-model-len 32K"\nKV_CACHE_MEMORY_BYTES=22GiB\n',
      },
    },
  ],
  invalid: [
    ...[
      ['SERVE_ARGS="--kv-cache-memory-bytes 22GiB"', "--kv-cache-memory-bytes"],
      ['SERVE_ARGS="--kv-cache-memory-bytes 22GB"', "--kv-cache-memory-bytes"],
      ['SERVE_ARGS="--max-model-len 22.5G"', "--max-model-len"],
      ["MAX_MODEL_LEN=-4096", "MAX_MODEL_LEN"],
      ["GPU_MEMORY_UTILIZATION=1.5", "GPU_MEMORY_UTILIZATION"],
    ].map(([line = "", name = ""]) => ({
      name: `${line} is refused`,
      files: seat(line),
      findings: [
        {
          line: 3,
          message: expect.stringMatching(new RegExp(`^v: ${literally(name)}: `)),
        },
      ],
    })),
    // The same quantity in the unit the key takes is the fix: 22 × 1,024³ = 23,622,320,128 bytes;
    // 25.6 × 1,024 = 26,214.4 → 26,214 tokens (vLLM takes K only on integers).
    ...[
      ['SERVE_ARGS="--kv-cache-memory-bytes 22GiB"', "--kv-cache-memory-bytes", "23622320128"],
      ['SERVE_ARGS="--kv-cache-memory-bytes 22GB"', "--kv-cache-memory-bytes", "22000000000"],
      ['SERVE_ARGS="--max-model-len 25.6K"', "--max-model-len", "26214"],
    ].map(([line = "", key = "", value = ""]) => ({
      name: `${line}: the fix is ${key} ${value}`,
      files: seat(line),
      findings: [
        {
          line: 3,
          message: expect.stringContaining(`; set ${key} ${value} (the same quantity in the unit it takes)`),
          data: { fix: { file: "scripts/v.env", line: 3, key, value } },
        },
      ],
    })),
    {
      name: "a value that is no quantity gets no value fix (GPU_MEMORY_UTILIZATION=1.5 has no unit to convert)",
      files: seat("GPU_MEMORY_UTILIZATION=1.5"),
      findings: [
        {
          line: 3,
          message: expect.not.stringContaining("; set "),
          data: expect.not.objectContaining({ fix: expect.anything() }),
        },
      ],
    },
  ],
});
