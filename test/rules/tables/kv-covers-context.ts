import { expect } from "vitest";
import { kvCoversContext } from "../../../src/checks/kv-covers-context.js";
import { ruleTester } from "../../helpers/rule-tester.js";
import { GiB, kvCase, policyOf, seat, voices } from "../../kv/fixtures.js";

const factor107 = policyOf({ kv: { seats: { voices: { factor: 1.07 } } } });
const owned = policyOf({ kv: { seats: { "gen-small": { pinned: "5.5GiB", by: "Prime" } } } });
const big = (pin: number) => seat("big", { MODEL: "Qwen/Qwen3-8B", GPU: "0,1", TP: "2", MAX_MODEL_LEN: "40960", KV_CACHE_MEMORY_BYTES: String(pin) });

export default ruleTester(kvCoversContext, {
  valid: [
    kvCase("a pin that covers the requirement exactly", [voices()]),
    kvCase("TP 2 halves the requirement: 4 GiB covers it", [big(4 * GiB)]),
    kvCase("the seat's factor from kv.seats (voices 1.07 → 6.5 GiB)", [voices({ KV_CACHE_MEMORY_BYTES: String(6.5 * GiB) })], { policy: factor107 }),
    kvCase("another engine is left alone", [seat("r", { ENGINE: "radiance", MODEL: "Qwen/Qwen3-8B" })]),
  ],
  invalid: [
    {
      ...kvCase("the contract's example, with the arithmetic and what to set", [voices({ KV_CACHE_MEMORY_BYTES: "6442450944" })]),
      findings: [{
        messageId: "short",
        message: "voices: KV pin 6 GiB < required 7.5 GiB = ceil(1.25 × 40,960 tokens × 144 KiB / 0.5 GiB) × 0.5 GiB; set KV_CACHE_MEMORY_BYTES=8053063680 (7.5GiB)",
        data: { required_bytes: 8_053_063_680, pinned_bytes: 6_442_450_944, bytes_per_token: 147_456, max_model_len: 40_960, factor: 1.25 },
        file: "scripts/voices.env", line: 6, service: "voices", status: "open",
      }],
    },
    {
      ...kvCase("TP 2 halves the requirement (73,728 B/token per GPU → 4 GiB)", [big(3.5 * GiB)]),
      findings: [{ data: { bytes_per_token: 73_728, required_bytes: 4 * GiB, pinned_bytes: 3.5 * GiB } }],
    },
    {
      ...kvCase("an fp8 KV cache halves it; the hint keeps the flag spelling", [voices({ KV_CACHE_DTYPE: "fp8", KV_CACHE_MEMORY_BYTES: undefined }, { "--kv-cache-memory-bytes": "3G" })]),
      findings: [{ data: { bytes_per_token: 73_728, required_bytes: 4 * GiB, pinned_bytes: 3 * GiB }, message: expect.stringContaining("set --kv-cache-memory-bytes 4294967296 (4GiB)") }],
    },
    {
      ...kvCase("the seat's factor from kv.seats, 6 GiB below it", [voices({ KV_CACHE_MEMORY_BYTES: String(6 * GiB) })], { policy: factor107 }),
      findings: [{ data: { factor: 1.07, required_bytes: 6.5 * GiB } }],
    },
    {
      ...kvCase("an owner-pinned seat is exempt, naming the owner", [seat("gen-small", { MODEL: "Qwen/Qwen3-4B-Instruct-2507", MAX_MODEL_LEN: "32768", KV_CACHE_MEMORY_BYTES: "5905580032" })], { policy: owned }),
      findings: [{ status: "exempt", reason: expect.stringContaining("Prime"), data: { required_bytes: 6 * GiB, pinned_bytes: 5.5 * GiB } }],
    },
  ],
});
