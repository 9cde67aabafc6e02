// seatOf remembers a seat per service, and only for the same policy, pack, model files and cards: a
// seat asked again under anything else is worked out again (a stale seat would judge the wrong card).
import { describe, expect, it } from "vitest";
import { seatOf } from "../../src/kv/seat.js";
import type { Card } from "../../src/model/types.js";
import { GiB, pack, policyOf, seat } from "./fixtures.js";

const card = (total: number): Card => ({ host: "fv-ml1", index: 0, totalBytes: total, reserveBytes: GiB });
const unpinned = (): ReturnType<typeof seat> =>
  seat("s", { MODEL: "Qwen/Qwen3-8B", MAX_MODEL_LEN: "40960", GPU_MEMORY_UTILIZATION: "0.5" });

describe("seatOf's memory", () => {
  it("gives the same seat for the same service, policy, pack and state", () => {
    const service = unpinned();
    const policy = policyOf();
    const state = { cards: [card(96 * GiB)] };
    const first = seatOf(service, policy, pack, state);
    expect(seatOf(service, policy, pack, state)).toBe(first);
    // And that seat is the one a service built alike gets afresh.
    expect(seatOf(unpinned(), policy, pack, state)).toEqual(first);
  });

  it("works the seat out again on other cards: the estimate follows the card", () => {
    const service = unpinned();
    const policy = policyOf();
    const big = seatOf(service, policy, pack, { cards: [card(96 * GiB)] });
    const small = seatOf(service, policy, pack, { cards: [card(48 * GiB)] });
    expect(big.estimate?.totalBytes).toBe(96 * GiB);
    expect(small.estimate?.totalBytes).toBe(48 * GiB);
    expect(small.estimate!.bytes).toBeLessThan(big.estimate!.bytes);
  });

  it("works the seat out again under another policy: the required KV follows kv.factor", () => {
    const service = unpinned();
    const state = { cards: [card(96 * GiB)] };
    const at125 = seatOf(service, policyOf(), pack, state);
    const at2 = seatOf(service, policyOf({ kv: { factor: 2 } }), pack, state);
    expect(at125.factor).toBe(1.25);
    expect(at2.factor).toBe(2);
    expect(at2.required!).toBeGreaterThan(at125.required!);
  });
});
