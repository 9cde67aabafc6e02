import { describe, expect, it } from "vitest";
import { cardUsage } from "../../src/kv/card-usage.js";
import { explainVllm } from "../../src/explain/vllm.js";
import { renderCardTable } from "../../src/report/card-table.js";
import { GiB, fleet, pack, policyOf, seat, tenant, voices } from "./fixtures.js";

const W8 = Math.round(15.3 * GiB); // Qwen3-8B weights at TP 1

describe("cardUsage", () => {
  it("adds weights + pin + overhead per seat, tenants' vram, and the spare", () => {
    const coder = seat("coder", { MODEL: "Qwen/Qwen2.5-Coder-7B-Instruct", GPU_MEMORY_UTILIZATION: "0.2" });
    const [g0, g1] = cardUsage(fleet([voices(), coder], [tenant("parakeet-nemo", 0, 3 * GiB)]), policyOf(), pack);
    const unpinned = Math.round(0.2 * 96 * GiB);
    expect(g0).toMatchObject({ host: "fv-ml1", index: 0, total_bytes: 96 * GiB, reserve_bytes: GiB, shared: true, ledgerSized: false });
    expect(g0?.entries.map((e) => [e.name, e.kind === "other" ? null : e.footprint_bytes])).toEqual([
      ["voices", W8 + 7.5 * GiB + 2 * GiB],
      ["coder", unpinned],
      ["parakeet-nemo", 3 * GiB],
    ]);
    expect(g0?.used_bytes).toBe(W8 + 9.5 * GiB + unpinned + 3 * GiB);
    expect(g0?.spare_bytes).toBe(95 * GiB - (g0?.used_bytes ?? 0));
    expect(g1).toMatchObject({ entries: [], used_bytes: 0, spare_bytes: 95 * GiB, shared: false });
  });

  it("halves the weights of a TP 2 seat and puts it on both cards", () => {
    const big = seat("big", {
      MODEL: "Qwen/Qwen3-32B",
      GPU: "0,1",
      TP: "2",
      MAX_MODEL_LEN: "32768",
      KV_CACHE_MEMORY_BYTES: String(4 * GiB),
    });
    const ls = cardUsage(fleet([big]), policyOf(), pack);
    for (const l of ls) expect(l.used_bytes).toBe(Math.round((61 * GiB) / 2) + 4 * GiB + 2 * GiB);
  });

  it("takes WEIGHTS_MIB and OVERHEAD_MIB from the service", () => {
    const s = voices({ WEIGHTS_MIB: "10240", OVERHEAD_MIB: "1024" });
    expect(cardUsage(fleet([s]), policyOf(), pack)[0]?.used_bytes).toBe(10 * GiB + 7.5 * GiB + GiB);
  });
});

describe("explainVllm", () => {
  it("gives each seat's kv numbers and footprint, and each card's totals", () => {
    const x = explainVllm(fleet([voices()], [tenant("parakeet-nemo", 0, 3 * GiB)]), policyOf(), pack);
    expect(x.services[0]).toMatchObject({
      name: "voices",
      kv: { bytes_per_token: 147_456, required_bytes: 8_053_063_680, pinned_bytes: 8_053_063_680, factor: 1.25 },
      footprint_bytes: W8 + 9.5 * GiB,
    });
    expect(x.gpus[0]).toMatchObject({
      host: "fv-ml1",
      index: 0,
      total_bytes: 96 * GiB,
      reserve_bytes: GiB,
      used_bytes: W8 + 12.5 * GiB,
      spare_bytes: 95 * GiB - W8 - 12.5 * GiB,
      tenants: ["voices", "parakeet-nemo"],
    });
  });
});

describe("renderCardTable", () => {
  it("prints each occupant's weights, KV, overhead and footprint, the spare and a bar per card", () => {
    const text = renderCardTable(cardUsage(fleet([voices()], [tenant("parakeet-nemo", 0, 3 * GiB)]), policyOf(), pack), { color: false });
    expect(text).toContain("fv-ml1 gpu 0  96 GiB total, 1 GiB reserve");
    expect(text).toMatch(/voices\s+15.3 GiB\s+7.5 GiB\s+2 GiB\s+24.8 GiB/);
    expect(text).toMatch(/parakeet-nemo \(tenant\)\s+3 GiB/);
    expect(text).toContain("used 27.8 GiB of 95 GiB  spare 67.2 GiB");
    const bars = text.split("\n").filter((l) => l.trim().startsWith("["));
    expect(bars).toHaveLength(2);
    expect(bars[0]).toMatch(/^\s+\[█{12}▒░{27}\]$/);
    expect(text).not.toContain("\u001b[");
  });
  it("marks an overcommitted card", () => {
    const seats = ["a", "b", "c", "d"].map((n) =>
      seat(n, { MODEL: "Qwen/Qwen3-8B", MAX_MODEL_LEN: "40960", KV_CACHE_MEMORY_BYTES: "8053063680" }),
    );
    const text = renderCardTable(cardUsage(fleet(seats), policyOf(), pack), { color: false });
    expect(text).toContain("over by 4.2 GiB");
    expect(text).toMatch(/\] over/);
  });
});
