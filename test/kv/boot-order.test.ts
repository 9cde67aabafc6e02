// explain's worst boot order per shared card: the vLLM seat with the least free memory left at its
// boot (behind every neighbour) minus what it asks boots last; that figure is kv/boot-check's.
import { describe, expect, it } from "vitest";
import { worstBootOrder } from "../../src/kv/boot-order.js";
import type { CardEntry, CardUsage } from "../../src/kv/card-usage.js";
import type { VllmSeat } from "../../src/kv/seat.js";

const GiB = 1024 ** 3;

function seatE(name: string, footprintGiB: number, utilization: number): CardEntry {
  const seat = { name, utilization } as VllmSeat;
  return {
    kind: "seat",
    name,
    seat,
    weights_bytes: null,
    kv_bytes: 0,
    overhead_bytes: 0,
    footprint_bytes: footprintGiB * GiB,
    pinned: true,
  };
}
function tenantE(name: string, footprintGiB: number): CardEntry {
  return { kind: "tenant", name, footprint_bytes: footprintGiB * GiB, pin: false };
}
function card(entries: CardEntry[], totalGiB = 96): CardUsage {
  const used = entries.reduce((n, e) => n + (e.kind === "other" ? 0 : e.footprint_bytes), 0);
  return {
    host: "h",
    index: 0,
    total_bytes: totalGiB * GiB,
    reserve_bytes: GiB,
    entries,
    used_bytes: used,
    spare_bytes: totalGiB * GiB - GiB - used,
    shared: entries.length > 1,
    ledgerSized: false,
  };
}

describe("worstBootOrder", () => {
  it.each([
    // [entries, last, free GiB, asked GiB, margin GiB]
    // a (40 GiB, asks 0.5 × 96 = 48) behind b + t (30 + 6): free 60, margin 12;
    // b (30 GiB, asks 0.6 × 96 = 57.6) behind a + t (40 + 6): free 50, margin −7.6 → b boots last
    [[seatE("a", 40, 0.5), seatE("b", 30, 0.6), tenantE("t", 6)], ["a", "t", "b"], 50, 57.6, -7.6],
    // the same seats at lower asks: b still the tightest (50 − 28.8 = 21.2 against 60 − 38.4 = 21.6)
    [[seatE("a", 40, 0.4), seatE("b", 30, 0.3), tenantE("t", 6)], ["a", "t", "b"], 50, 28.8, 21.2],
    // one seat and two tenants: the seat is last, the tenants by size first
    [[tenantE("small", 2), seatE("s", 20, 0.25), tenantE("big", 10)], ["big", "small", "s"], 84, 24, 60],
  ])("%#: order %j", (entries, order, free, asked, margin) => {
    const w = worstBootOrder(card(entries));
    expect(w).not.toBeNull();
    expect(w!.order).toEqual(order);
    expect(w!.free_bytes).toBe(free * GiB);
    expect(w!.asked_bytes).toBe(Math.round(asked * GiB));
    expect(w!.margin_bytes).toBe(w!.free_bytes - w!.asked_bytes);
    expect(w!.margin_bytes / GiB).toBeCloseTo(margin, 6);
  });

  it("ties go to the first name, so the output is stable", () => {
    const w = worstBootOrder(card([seatE("zed", 10, 0.5), seatE("amy", 10, 0.5)]));
    expect(w).toMatchObject({ last: "amy", order: ["zed", "amy"], free_bytes: 86 * GiB, margin_bytes: 38 * GiB });
  });

  it("names another engine's service it cannot size, counted as 0", () => {
    const other: CardEntry = { kind: "other", name: "rad", engine: "radiance" };
    const w = worstBootOrder(card([seatE("s", 20, 0.5), other]));
    expect(w).toMatchObject({ last: "s", order: ["rad", "s"], free_bytes: 96 * GiB, uncounted: ["rad"] });
  });

  it("is null for a card not shared, and for a shared card without a vLLM seat", () => {
    expect(worstBootOrder(card([seatE("alone", 40, 0.9)]))).toBeNull();
    expect(worstBootOrder(card([tenantE("t1", 4), tenantE("t2", 4)]))).toBeNull();
  });
});
