// What a seat should be set to for its traffic, by the KV rule (contract §4: ceil(factor × tokens ×
// bytes per token / round) × round), worked by hand; and the report never shows a raw key.
import { describe, expect, test } from "vitest";
import { nextPowerOfTwo, recommend } from "../../src/usage/recommend.js";
import { buildReport } from "../../src/usage/report.js";
import type { SeatView } from "../../src/usage/seats.js";
import type { ServiceFigures } from "../../src/usage/figures.js";
import { requiredKv } from "../../src/kv/bytes.js";
import { GiB } from "../../src/units/bytes.js";

// Qwen3-8B: 2 × 36 layers × 8 KV heads × 128 × 2 B = 147,456 B (144 KiB) per token.
const SEAT: SeatView = {
  name: "voices",
  engine: "vllm",
  bytesPerToken: 147_456,
  factor: 1.25,
  roundBytes: GiB / 2,
  maxModelLen: 40_960,
  pinnedBytes: 7 * GiB,
  ownerPinned: null,
  outputCap: 8192,
  modelMaxContext: 40_960,
};

function figures(p: Partial<ServiceFigures> = {}): ServiceFigures {
  return {
    name: "voices",
    calls: 1000,
    failed: 0,
    contextErrors: { count: 0, maxAsked: null, limit: null },
    cacheHits: 0,
    deployments: [],
    prompt: { p50: 800, p99: 15_000, max: 20_000 },
    completion: { p50: 300, p99: 2_000, max: 3_000 },
    peakAll: 60_000,
    peakWithoutRunaways: 60_000,
    peakCut: 8193,
    maxCompletionWithoutRunaways: 3_000,
    runawayThreshold: 8192,
    runawayCount: 0,
    runaways: [],
    runawayKeys: [],
    firstStartMs: Date.UTC(2026, 8, 28),
    lastStartMs: Date.UTC(2026, 9, 4),
    ...p,
  };
}

describe("the recommendation, by hand", () => {
  test("the seat's cap; context = largest prompt + cap; KV for the larger of the peak and the context", () => {
    const r = recommend(figures(), SEAT);
    // 20,000 + 8,192 = 28,192 → 28 × 1,024 = 28,672
    expect(r.max_model_len).toBe(28_672);
    expect(r.output_cap).toBe(8192);
    expect(r.output_cap_source).toBe("seat");
    // 1.25 × 28,672 × 147,456 / 0.5 GiB = 9.84 → 10 × 0.5 GiB = 5 GiB
    expect(r.kv_for_context_bytes).toBe(5 * GiB);
    // 1.25 × 60,000 × 147,456 / 0.5 GiB = 20.6 → 21 × 0.5 GiB = 10.5 GiB
    expect(r.kv_for_peak_bytes).toBe(10.5 * GiB);
    expect(r.kv_bytes).toBe(10.5 * GiB);
    expect(r.notes).toEqual([]);
  });

  test("a quiet seat: the context decides the KV, so kv/covers-context passes on the advice", () => {
    const r = recommend(figures({ peakWithoutRunaways: 5_000 }), SEAT);
    // 1.25 × 5,000 × 147,456 / 0.5 GiB = 1.72 → 1 GiB for the peak, but 5 GiB to cover 28,672 tokens
    expect(r.kv_for_peak_bytes).toBe(1 * GiB);
    expect(r.kv_bytes).toBe(5 * GiB);
    expect(r.kv_bytes).toBeGreaterThanOrEqual(
      requiredKv({ factor: 1.25, maxModelLen: r.max_model_len, bytesPerToken: 147_456, roundBytes: GiB / 2 }),
    );
  });

  test.each([
    [3_000, 4096],
    [4_096, 4096],
    [4_097, 8192],
    [0, 1024],
    [null, 1024],
  ])("no cap on the seat: the largest non-runaway reply %s → cap %i (next power of two, at least 1,024)", (largest, cap) => {
    const r = recommend(figures({ maxCompletionWithoutRunaways: largest }), { ...SEAT, outputCap: null });
    expect(r.output_cap).toBe(cap);
    expect(r.output_cap_source).toBe("traffic");
    expect(r.max_model_len).toBe(Math.ceil((20_000 + cap) / 1024) * 1024);
  });

  test("notes: no cap with runaways, above the model's native context, an owner's pin, an unknown model", () => {
    const r = recommend(
      figures({ runawayCount: 9, completion: { p50: 300, p99: 2_000, max: 261_816 }, prompt: { p50: 800, p99: 4_000, max: 40_000 } }),
      { ...SEAT, outputCap: null, ownerPinned: { bytes: 5.5 * GiB, by: "Prime" } },
    );
    expect(r.notes).toEqual([
      // 40,000 + 4,096 = 44,096 tokens → ⌈43.06⌉ = 44 × 1,024 = 45,056
      "max_model_len 45056 is above the model's native 40960: lower the output cap, or accept that the largest prompts get shorter replies",
      "the KV is owner-pinned by Prime (kv.seats.voices.pinned): a different pin is theirs to decide",
      "no output cap today: 9 runaway replies ran to 261816 tokens",
    ]);
    const unknown = recommend(figures(), { ...SEAT, bytesPerToken: null });
    expect(unknown.kv_bytes).toBeNull();
    expect(unknown.notes[0]).toMatch(/bytes per token are unknown/);
  });

  test("the evidence behind it: requests, span, and what each figure was taken from", () => {
    expect(recommend(figures(), SEAT).evidence).toEqual({
      requests: 1000,
      span_hours: 144,
      max_model_len_from: "the largest prompt (p100, 20000 tokens) + the output cap",
      output_cap_from: "the seat's cap in force",
      kv_from: "the peak in flight, the replies at the cap included (60000 tokens; only replies above the cap left out)",
    });
  });

  test("the engine preempted at 10.5 GiB, where the spend logs ask 10.5 GiB: one kv.round above it, said why", () => {
    const engine = {
      source: "vllm.json",
      preemptions: 12,
      windows: [{ from: "2026-10-01T10:00:00.000Z", until: "2026-10-01T10:30:00.000Z", preemptions: 12 }],
      peak_kv_usage: 1,
      kv_bytes: 10.5 * GiB,
    };
    const r = recommend(figures(), SEAT, engine);
    expect(r.kv_for_peak_bytes).toBe(10.5 * GiB);
    expect(r.kv_for_preemptions_bytes).toBe(11 * GiB);
    expect(r.kv_bytes).toBe(11 * GiB);
    expect(r.notes).toEqual([
      "the engine preempted 12 requests (vllm.json, from 2026-10-01 10:00 UTC) at KV 10.5 GiB: vLLM ran out of KV blocks, so the seat needed more than it had",
      "the spend logs alone would advise no more than it preempted at: KV raised one kv.round above it, then observe again",
    ]);
    // Preemptions at a KV below what the logs ask: the logs' figure stands, the note says what the engine saw.
    const lower = recommend(figures(), SEAT, { ...engine, kv_bytes: 6 * GiB });
    expect(lower.kv_bytes).toBe(10.5 * GiB);
    expect(lower.kv_for_preemptions_bytes).toBeNull();
    expect(lower.notes).toHaveLength(1);
  });

  test("context-length refusals and several deployments are said", () => {
    const r = recommend(
      figures({
        contextErrors: { count: 3, maxAsked: 33_154, limit: 32_768 },
        deployments: [
          { name: "http://fv-ml1:8001/v1", calls: 600, peakAll: 40_000 },
          { name: "http://fv-ml2:8001/v1", calls: 400, peakAll: 30_000 },
        ],
      }),
      SEAT,
    );
    expect(r.notes).toEqual([
      "3 requests were refused for context length (the largest asked 33154 tokens of 32768): not in the figures above; serving them needs max_model_len ≥ 33792",
      "2 deployments serve it (http://fv-ml1:8001/v1: 600 calls, peak 40000 tokens; http://fv-ml2:8001/v1: 400 calls, peak 30000 tokens): the figures are the whole group's; a seat that serves part of it needs its own share",
    ]);
  });

  test("next power of two", () => {
    expect([1, 1024, 1025, 32_767, 32_768, 32_769].map(nextPowerOfTwo)).toEqual([1024, 1024, 2048, 32_768, 32_768, 65_536]);
  });
});

describe("the report never shows a raw key", () => {
  const raw = "8f3a9c1d2e4b5a6978c0d1e2f3a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6";
  test("runaways and their keys show the first 4 and last 2 characters and a sha256 fingerprint", () => {
    const f = figures({
      runawayCount: 2,
      runaways: [
        {
          request_id: "r1",
          api_key: raw,
          alias: "all-agents-local",
          prompt_tokens: 900,
          completion_tokens: 261_000,
          start_ms: Date.UTC(2026, 9, 1),
        },
      ],
      runawayKeys: [{ api_key: raw, alias: "all-agents-local", count: 2, max_completion_tokens: 261_000 }],
    });
    const report = buildReport({
      source: { files: ["week.jsonl"] },
      since: null,
      until: null,
      counts: { read: 1000, used: 1000, skipped: 0, outside: 0, failed: 0, cacheHits: 0 },
      problems: [],
      figures: [f],
      seats: new Map([["voices", SEAT]]),
      floor: { minRequests: 1000, minSpanMs: 24 * 3_600_000 },
      engines: new Map(),
    });
    const text = JSON.stringify(report);
    expect(text).not.toContain(raw);
    expect(text).not.toContain(raw.slice(4, -2));
    expect(report.services[0]?.runaway_keys).toEqual([
      {
        key: "8f3a…c6",
        key_fingerprint: expect.stringMatching(/^sha256:[0-9a-f]{12}$/),
        key_alias: "all-agents-local",
        count: 2,
        max_completion_tokens: 261_000,
      },
    ]);
    expect(report.services[0]?.runaways[0]).toMatchObject({
      request_id: "r1",
      key: "8f3a…c6",
      completion_tokens: 261_000,
      start: "2026-10-01T00:00:00.000Z",
    });
  });
});
