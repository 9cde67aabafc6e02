import { expect } from "vitest";
import { kvCoversContext } from "../../../src/checks/kv-covers-context.js";
import { ruleTester } from "../../helpers/rule-tester.js";
import { GiB, kvCase, policyOf, seat, voices } from "../../kv/fixtures.js";

const factor107 = policyOf({ kv: { seats: { voices: { factor: 1.07 } } } });
const owned = policyOf({ kv: { seats: { "gen-small": { pinned: "5.5GiB", by: "Prime" } } } });
// One 24 GiB card at 0.9 on vLLM 0.11 (no CUDA-graph estimate in the budget): an unpinned
// Llama-3.1-8B seat, sized as Worker.determine_available_memory counts it. Estimate: 0.9 × 24 GiB −
// 15 GiB weights − 1.35 GiB overhead (0.25 GiB non-torch + the larger of 2,048 tokens × 2 B × (8 × 4,096
// + 2 × 14,336) and the dummy sampler's 256 × 128,256 × 36 B) = 5.25 GiB. What fits:
// floor(5.25 GiB / 0.5 GiB) × 0.5 GiB / 1.25 = 4 GiB / 128 KiB = 32,768 tokens.
const card24 = policyOf({ fleet: { hosts: { "fv-ml1": { gpus: [{ index: 0, total: "24GiB" }] } } } });
// An L4 sold as "24 GB" reports 23,034 MiB (22.49 GiB) to CUDA: given as cuda_total, the estimate is
// 0.9 × 22.49 GiB − 15 GiB − 1.35 GiB = 3.89 GiB. At 32,768 tokens (4 GiB × 1.25 → 5 GiB required)
// the 24 GiB estimate (5.25 GiB) passes and the CUDA total's refuses.
const l4 = policyOf({ fleet: { hosts: { "fv-ml1": { gpus: [{ index: 0, total: "24GiB", cuda_total: "23034MiB" }] } } } });
const llama = (env: Record<string, string | undefined>) =>
  seat("llama", { MODEL: "meta-llama/Llama-3.1-8B-Instruct", GPU_MEMORY_UTILIZATION: "0.9", VLLM_VERSION: "0.11.0", ...env });
const OVERHEAD_LLAMA = Math.round(0.25 * GiB) + 256 * 128256 * 36;
const ESTIMATE_LLAMA = Math.floor(0.9 * 24 * GiB - 15 * GiB - OVERHEAD_LLAMA);
const ESTIMATE_L4 = Math.floor(0.9 * 23034 * 2 ** 20 - 15 * GiB - OVERHEAD_LLAMA);
// vLLM 0.21 profiles its CUDA graphs inside the budget: 32 layers × (51 piecewise sizes + 35 full
// decode graphs) × 4,096 hidden × 10 B = 0.1 GiB less.
const GRAPHS_LLAMA = 32 * 86 * 4096 * 10;
// Gemma-3-27B at its 131,072 tokens: 52 sliding (window 1,024) + 10 full layers, 16 KV heads × 128 ×
// 2 B × 2 = 8 KiB per token per layer; vLLM groups them in 10-layer groups (1 full + 6 sliding groups
// of 10 slots, 2 of them padding): 10 × 8,192 blocks × 128 KiB + 60 × (cdiv(1,023 + 2,048, 16) + 1 = 193)
// blocks × 128 KiB = 10 GiB + 1.41 GiB = 11.41 GiB; × 1.25 → 14.27 GiB → required 14.5 GiB (not the
// 77.5 GiB of every layer at full context).
const gemma = (pin: number, env: Record<string, string | undefined> = {}) =>
  seat("gemma", {
    MODEL: "google/gemma-3-27b-it",
    MAX_MODEL_LEN: "131072",
    KV_CACHE_MEMORY_BYTES: String(pin),
    MAX_NUM_BATCHED_TOKENS: "2048",
    ...env,
  });
const big = (pin: number) =>
  seat("big", { MODEL: "Qwen/Qwen3-8B", GPU: "0,1", TP: "2", MAX_MODEL_LEN: "40960", KV_CACHE_MEMORY_BYTES: String(pin) });

export default ruleTester(kvCoversContext, {
  valid: [
    kvCase("--dtype bfloat16 keeps the 2-byte cache: 3 GiB holds 16,384 tokens", [
      voices({ MAX_MODEL_LEN: "16384", KV_CACHE_MEMORY_BYTES: String(3 * GiB) }, { "--dtype": "bfloat16" }),
    ]),
    kvCase("a pin that covers the requirement exactly", [voices()]),
    kvCase("TP 2 halves the requirement: 4 GiB covers it", [big(4 * GiB)]),
    kvCase("the seat's factor from kv.seats (voices 1.07 → 6.5 GiB)", [voices({ KV_CACHE_MEMORY_BYTES: String(6.5 * GiB) })], {
      policy: factor107,
    }),
    kvCase("an unpinned Llama-3.1-8B at 16,384 tokens: required 2.5 GiB ≤ the 5.25 GiB estimate", [llama({ MAX_MODEL_LEN: "16384" })], {
      policy: card24,
    }),
    kvCase(
      "Gemma-3-27B at 131,072 on a 96 GiB card (8,192 batched tokens: 577 blocks per sliding slot, 10 GiB + 4.23 GiB = 14.23 GiB) pinned at its 18 GiB",
      [gemma(18 * GiB, { MAX_NUM_BATCHED_TOKENS: undefined })],
    ),
    kvCase("Gemma-3-27B at 131,072 pinned at 14.5 GiB: sliding layers keep their window, as vLLM sizes them", [gemma(14.5 * GiB)]),
    kvCase(
      "an unpinned Llama-3.1-8B at 32,768 tokens on a 24 GiB card: required 5 GiB ≤ the 5.25 GiB estimate",
      [llama({ MAX_MODEL_LEN: "32768" })],
      { policy: card24 },
    ),
    kvCase("--max-model-len auto cannot be sized ahead (kv/auto-context says so)", [llama({ MAX_MODEL_LEN: "auto" })], { policy: card24 }),
    kvCase("another engine is left alone", [seat("r", { ENGINE: "radiance", MODEL: "Qwen/Qwen3-8B" })]),
  ],
  invalid: [
    {
      // vLLM's cache dtype `auto` follows the dtype the weights load in: --dtype float32 doubles the
      // cache to 2 × 36 layers × 8 KV heads × 128 × 4 B = 294,912 B/token; 1.25 × 16,384 tokens × 288 KiB
      // = 5.625 GiB → 6 GiB required, more than the 3 GiB pin (which bfloat16's 3 GiB would have met).
      ...kvCase("--dtype float32: a 4-byte cache", [
        voices({ MAX_MODEL_LEN: "16384", KV_CACHE_MEMORY_BYTES: String(3 * GiB) }, { "--dtype": "float32" }),
      ]),
      findings: [{ service: "voices", data: { bytes_per_token: 294_912, required_bytes: 6 * GiB, pinned_bytes: 3 * GiB } }],
    },
    {
      // vLLM 0.8.5 has no byte pin: the advice is the utilization at which the profiler leaves the KV.
      // (required + weights + overhead) / total, rounded up to the hundredth, with no CUDA graphs in
      // the budget before 0.21; the card is the seat's alone, so raising it fits.
      ...kvCase(
        "vLLM 0.8.5, unpinned and short: the utilization that leaves the KV, never a pin flag",
        [llama({ VLLM_VERSION: "0.8.5", GPU_MEMORY_UTILIZATION: "0.5", MAX_MODEL_LEN: "8192" })],
        { policy: card24 },
      ),
      findings: [
        {
          messageId: "estimated-no-pin",
          message: expect.stringMatching(
            /^llama: no KV pin \(vLLM 0\.8\.5 has none: --kv-cache-memory-bytes came in 0\.10\.2\).*; set GPU_MEMORY_UTILIZATION=0\.\d\d, which leaves the KV it needs$/,
          ),
          data: {
            no_pin_version: "0.8.5",
            kv_source: "estimated",
            required_bytes: 1.5 * GiB,
            fix: { key: "GPU_MEMORY_UTILIZATION", value: "0.75" },
          },
        },
      ],
    },
    {
      name: "the same written the operator's way (VLLM_IMAGE, flags in VLLM_EXTRA_ARGS): the fix is the flag, in place",
      files: {
        "kvgate.yaml": "fleet:\n  hosts:\n    box: { gpus: [ { index: 0, total: 24GiB } ] }\n",
        "deploy/llama.env":
          'VLLM_IMAGE=vllm/vllm-openai:v0.8.5\nHOST=box\nVLLM_EXTRA_ARGS="--model meta-llama/Llama-3.1-8B-Instruct --max-model-len 8192 --gpu-memory-utilization 0.5"\n',
      },
      findings: [
        {
          messageId: "estimated-no-pin",
          file: "deploy/llama.env",
          line: 3,
          message: expect.stringContaining("set --gpu-memory-utilization 0.75, which leaves the KV it needs"),
          data: { fix: { file: "deploy/llama.env", line: 3, key: "--gpu-memory-utilization", value: "0.75" } },
        },
      ],
    },
    {
      ...kvCase(
        "the same at 32,768 tokens on an L4 whose CUDA total is 23,034 MiB: required 5 GiB > the 3.89 GiB estimate",
        [llama({ MAX_MODEL_LEN: "32768" })],
        { policy: l4 },
      ),
      findings: [
        {
          messageId: "estimated",
          message: expect.stringContaining("an estimated 3.89 GiB (0.9 × 22.49 GiB − weights 15 GiB − overhead 1.35 GiB) < required 5 GiB"),
          data: { kv_source: "estimated", estimated_bytes: ESTIMATE_L4, required_bytes: 5 * GiB, total_bytes: 23034 * 2 ** 20 },
        },
      ],
    },
    {
      ...kvCase(
        "an unpinned Llama-3.1-8B at 131,072 tokens: required 20 GiB > the 5.25 GiB estimate; the longest that fits",
        [llama({ MAX_MODEL_LEN: "131072" })],
        { policy: card24 },
      ),
      findings: [
        {
          messageId: "estimated",
          message: expect.stringMatching(
            /^llama: no KV pin, so vLLM's profiler sizes the cache: an estimated 5\.25 GiB \(0\.9 × 24 GiB − weights 15 GiB − overhead 1\.35 GiB\) < required 20 GiB = .*; set MAX_MODEL_LEN=32768, the longest/,
          ),
          data: {
            kv_source: "estimated",
            estimated_bytes: ESTIMATE_LLAMA,
            required_bytes: 20 * GiB,
            pinned_bytes: null,
            request_bytes: 16 * GiB,
            max_model_len: 131_072,
            fits: 32_768,
            layers: { full: 32, sliding: 0, chunked: 0, mamba: 0, mla: 0 },
            vllm_version: "0.11.0",
          },
          file: "scripts/llama.env",
          line: 7,
        },
      ],
    },
    {
      // No version named: sized for the allowed 0.19–0.21. At 0.911 and 35,840 tokens (5.5 GiB required)
      // 0.19–0.20 leave 5.51 GiB and pass; 0.21 subtracts its 0.1 GiB graph estimate and fails: a
      // warning naming 0.21.
      ...kvCase(
        "no version named: fails on vLLM 0.21 only (graphs inside the budget), so a warning naming it",
        [llama({ MAX_MODEL_LEN: "35840", GPU_MEMORY_UTILIZATION: "0.911", VLLM_VERSION: undefined })],
        { policy: card24 },
      ),
      findings: [
        {
          messageId: "estimated",
          severity: "warning",
          message: expect.stringContaining("(on vLLM 0.21.0 only, of the 0.19.0–0.21.0 engines.vllm.versions allows"),
          data: {
            estimated_bytes: Math.floor(0.911 * 24 * GiB - 15 * GiB - OVERHEAD_LLAMA - GRAPHS_LLAMA),
            required_bytes: 5.5 * GiB,
            failing_vllm_versions: ["0.21.0"],
            assumed_vllm_versions: ["0.19.0", "0.20.0", "0.21.0"],
          },
        },
      ],
    },
    {
      ...kvCase(
        "no version named and too long for every allowed release: an error",
        [llama({ MAX_MODEL_LEN: "131072", VLLM_VERSION: undefined })],
        { policy: card24 },
      ),
      findings: [
        {
          messageId: "estimated",
          severity: "error",
          message: expect.stringContaining("(no vLLM version named: fails on every allowed release, 0.19.0–0.21.0; figures for 0.21.0)"),
          data: { failing_vllm_versions: ["0.19.0", "0.20.0", "0.21.0"] },
        },
      ],
    },
    {
      ...kvCase("Gemma-3-27B pinned at 14 GiB, below its 14.5 GiB", [gemma(14 * GiB)]),
      findings: [
        {
          messageId: "short",
          message: expect.stringContaining("ceil(1.25 × 11.41 GiB for one 131,072-token request / 0.5 GiB) × 0.5 GiB"),
          data: { required_bytes: 14.5 * GiB, pinned_bytes: 14 * GiB, layers: { full: 10, sliding: 52 } },
        },
      ],
    },
    {
      ...kvCase("the contract's example, with the arithmetic and what to set", [voices({ KV_CACHE_MEMORY_BYTES: "6442450944" })]),
      example: true,
      findings: [
        {
          messageId: "short",
          message:
            "voices: KV pin 6 GiB < required 7.5 GiB = ceil(1.25 × 40,960 tokens × 144 KiB / 0.5 GiB) × 0.5 GiB; set KV_CACHE_MEMORY_BYTES=8053063680 (7.5GiB)",
          data: {
            required_bytes: 8_053_063_680,
            pinned_bytes: 6_442_450_944,
            bytes_per_token: 147_456,
            max_model_len: 40_960,
            factor: 1.25,
          },
          file: "scripts/voices.env",
          line: 6,
          service: "voices",
          status: "open",
        },
      ],
    },
    {
      ...kvCase("TP 2 halves the requirement (73,728 B/token per GPU → 4 GiB)", [big(3.5 * GiB)]),
      findings: [{ data: { bytes_per_token: 73_728, required_bytes: 4 * GiB, pinned_bytes: 3.5 * GiB } }],
    },
    {
      ...kvCase("an fp8 KV cache halves it; the hint keeps the flag spelling", [
        voices({ KV_CACHE_DTYPE: "fp8", KV_CACHE_MEMORY_BYTES: undefined }, { "--kv-cache-memory-bytes": "3G" }),
      ]),
      findings: [
        {
          data: { bytes_per_token: 73_728, required_bytes: 4 * GiB, pinned_bytes: 3 * GiB },
          message: expect.stringContaining("set --kv-cache-memory-bytes 4294967296 (4GiB)"),
        },
      ],
    },
    {
      ...kvCase("the seat's factor from kv.seats, 6 GiB below it", [voices({ KV_CACHE_MEMORY_BYTES: String(6 * GiB) })], {
        policy: factor107,
      }),
      findings: [{ data: { factor: 1.07, required_bytes: 6.5 * GiB } }],
    },
    {
      ...kvCase(
        "an owner-pinned seat is exempt, naming the owner",
        [seat("gen-small", { MODEL: "Qwen/Qwen3-4B-Instruct-2507", MAX_MODEL_LEN: "32768", KV_CACHE_MEMORY_BYTES: "5905580032" })],
        { policy: owned },
      ),
      findings: [
        { status: "exempt", reason: expect.stringContaining("Prime"), data: { required_bytes: 6 * GiB, pinned_bytes: 5.5 * GiB } },
      ],
    },
  ],
});
