import { expect } from "vitest";
import { kvUnpinnedSharedCard } from "../../../src/checks/kv-unpinned-shared-card.js";
import { ruleTester } from "../../helpers/rule-tester.js";
import { GiB, kvCase, tenant, voices } from "../../kv/fixtures.js";

const utilOnly = () => voices({ KV_CACHE_MEMORY_BYTES: undefined }, { "--gpu-memory-utilization": "0.45" });

// Two vLLM 0.8.5 seats (no --kv-cache-memory-bytes before 0.10.2) on one 24 GiB card, as an operator
// writes them: the image in VLLM_IMAGE, every flag in VLLM_EXTRA_ARGS.
const CARDS = "fleet:\n  hosts:\n    box: { gpus: [ { index: 0, total: 24GiB } ] }\n";
const old = (model: string, util: string) =>
  `VLLM_IMAGE=vllm/vllm-openai:v0.8.5\nHOST=box\nCUDA_VISIBLE_DEVICES=0\nVLLM_EXTRA_ARGS="--model ${model} --max-model-len 8192 --gpu-memory-utilization ${util}"\n`;
const compose = (healthy: boolean) =>
  [
    "services:",
    "  chat:",
    "    image: vllm/vllm-openai:v0.8.5",
    '    command: ["--model", "Qwen/Qwen3-0.6B", "--max-model-len", "8192", "--gpu-memory-utilization", "0.3"]',
    "    environment: { HOST: box, CUDA_VISIBLE_DEVICES: '0' }",
    "    healthcheck: { test: [CMD, curl, -f, http://localhost:8000/health] }",
    "  embed:",
    "    image: vllm/vllm-openai:v0.8.5",
    '    command: ["--model", "Qwen/Qwen3-1.7B", "--max-model-len", "8192", "--gpu-memory-utilization", "0.6"]',
    "    environment: { HOST: box, CUDA_VISIBLE_DEVICES: '0' }",
    ...(healthy ? ["    depends_on: { chat: { condition: service_healthy } }"] : ["    depends_on: [chat]"]),
    "",
  ].join("\n");

export default ruleTester(kvUnpinnedSharedCard, {
  valid: [
    kvCase("the utilization-sized seat alone on its card", [utilOnly()]),
    {
      name: "vLLM 0.8.5 has no pin; compose starts embed only once chat is healthy, so each profiles with the other resident",
      files: { "kvgate.yaml": CARDS, "compose.yaml": compose(true) },
    },
    kvCase("a pinned seat on a shared card", [voices()], { tenants: [tenant("parakeet-nemo", 0, 3 * GiB)] }),
  ],
  invalid: [
    {
      name: "vLLM 0.8.5 in VLLM_IMAGE, two seats on one card and nothing orders their boots: serialize or upgrade, never a pin flag",
      files: { "kvgate.yaml": CARDS, "deploy/chat.env": old("Qwen/Qwen3-0.6B", "0.3"), "deploy/embed.env": old("Qwen/Qwen3-1.7B", "0.6") },
      findings: [
        {
          messageId: "no-pin",
          service: "chat",
          file: "deploy/chat.env",
          line: 4,
          data: { neighbours: ["embed"], version: "0.8.5", utilization: 0.3 },
          message: expect.stringMatching(
            /vLLM 0\.8\.5 has none \(--kv-cache-memory-bytes came in 0\.10\.2\).*start it only after embed is up .* or upgrade to vLLM 0\.10\.2 or later and pin it$/,
          ),
        },
        { messageId: "no-pin", service: "embed", data: { neighbours: ["chat"], version: "0.8.5" } },
      ],
    },
    {
      name: "vLLM 0.10.2 has the pin: it is advised as a flag inside VLLM_EXTRA_ARGS, where the file's flags live",
      files: {
        "kvgate.yaml": CARDS,
        "deploy/chat.env": old("Qwen/Qwen3-0.6B", "0.3").replace("v0.8.5", "v0.10.2"),
        "deploy/embed.env": old("Qwen/Qwen3-1.7B", "0.3").replace("v0.8.5", "v0.10.2"),
      },
      findings: [
        {
          messageId: "unpinned",
          service: "chat",
          message: expect.stringContaining("set --kv-cache-memory-bytes 1610612736 in VLLM_EXTRA_ARGS (1.5GiB)"),
          data: { fix: { file: "deploy/chat.env", line: 4, key: "--kv-cache-memory-bytes", value: "1610612736", into: "VLLM_EXTRA_ARGS" } },
        },
        { messageId: "unpinned", service: "embed", data: { fix: { into: "VLLM_EXTRA_ARGS" } } },
      ],
    },
    {
      name: "compose's short depends_on waits for a start, not a healthy engine: still refused",
      files: { "kvgate.yaml": CARDS, "compose.yaml": compose(false) },
      findings: [
        { messageId: "no-pin", service: "chat", file: "compose.yaml" },
        { messageId: "no-pin", service: "embed", file: "compose.yaml" },
      ],
    },
    {
      ...kvCase("a seat with only --gpu-memory-utilization on a card shared with a tenant", [utilOnly()], {
        tenants: [tenant("parakeet-nemo", 0, 3 * GiB)],
      }),
      findings: [
        {
          data: { neighbours: ["parakeet-nemo"], utilization: 0.45, required_bytes: 7.5 * GiB, pinned_bytes: null },
          message: expect.stringContaining("set KV_CACHE_MEMORY_BYTES=8053063680 (7.5GiB)"),
        },
      ],
    },
    {
      // At 0.1 of 96 GiB voices holds 9.6 GiB beside a 75 GiB tenant; pinned it would hold 15.3 + 7.5 +
      // 2 = 24.8 GiB, which the card cannot: no pin is advised (gpu/fits would refuse it).
      ...kvCase(
        "a pin the card cannot hold is not advised",
        [voices({ KV_CACHE_MEMORY_BYTES: undefined, GPU_MEMORY_UTILIZATION: "0.1" })],
        { tenants: [tenant("big", 0, 75 * GiB)] },
      ),
      findings: [
        {
          data: { overfills: true, set: null },
          message: expect.stringContaining("the pin it needs (7.5 GiB) would overfill the card: move a seat (kvgate plan --host fv-ml1)"),
        },
      ],
    },
  ],
});
