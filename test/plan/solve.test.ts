import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { solvePlan } from "../../src/plan/solve.js";
import { prepare, worstOf } from "../../src/plan/prepare.js";
import { greedy, localSearch } from "../../src/plan/heuristic.js";
import type { PlanInput } from "../../src/plan/problem.js";
import { planForHost } from "../../src/plan/host.js";
import { gapGiB, renderPlan } from "../../src/report/plan.js";
import { GiB, fleet, pack, policyOf, seat, tenant } from "../kv/fixtures.js";

/** Every assignment of the movable items: the worst spare it reaches and how many items it moves. */
function bruteForce(input: PlanInput): { worst: number; minMoves: number } {
  const C = input.cards.length;
  const base = input.cards.map(
    (c) => c.total_bytes - c.reserve_bytes - input.fixed.filter((x) => x.card === c.index).reduce((s, x) => s + x.bytes, 0),
  );
  let worst = -Infinity;
  let minMoves = Infinity;
  const n = input.items.length;
  const a = new Array<number>(n).fill(0);
  const total = C ** n;
  for (let code = 0; code < total; code++) {
    let x = code;
    for (let k = 0; k < n; k++) {
      a[k] = x % C;
      x = Math.floor(x / C);
    }
    const spare = base.slice();
    const floor = input.cards.map((c) =>
      Math.max(-Infinity, ...input.fixed.filter((x) => x.card === c.index).map((x) => x.boot_floor ?? -Infinity)),
    );
    let moves = 0;
    for (let k = 0; k < n; k++) {
      spare[a[k]!] = spare[a[k]!]! - input.items[k]!.footprints[a[k]!]!;
      floor[a[k]!] = Math.max(floor[a[k]!]!, input.items[k]!.boot_floors?.[a[k]!] ?? -Infinity);
      if (input.items[k]!.current !== input.cards[a[k]!]!.index) moves++;
    }
    // kv/boot-check: a layout where some seat cannot boot last is not a layout
    if (spare.some((x, c) => x < floor[c]!)) continue;
    const w = Math.min(...spare);
    if (w > worst) {
      worst = w;
      minMoves = moves;
    } else if (w === worst) minMoves = Math.min(minMoves, moves);
  }
  return { worst, minMoves };
}

const instance = fc
  .record({
    cards: fc.integer({ min: 1, max: 3 }),
    sameTotals: fc.boolean(),
    // few sizes: runs of identical items, where card symmetry and item symmetry must agree
    fewSizes: fc.boolean(),
    items: fc.array(fc.record({ size: fc.integer({ min: 1, max: 40 }), current: fc.integer({ min: 0, max: 2 }), perCard: fc.boolean() }), {
      minLength: 0,
      maxLength: 8,
    }),
    fixed: fc.array(fc.record({ card: fc.integer({ min: 0, max: 2 }), size: fc.integer({ min: 1, max: 30 }) }), { maxLength: 2 }),
  })
  .map(({ cards, sameTotals, fewSizes, items, fixed }): PlanInput => ({
    host: "h",
    cards: Array.from({ length: cards }, (_, i) => ({ index: i, total_bytes: (sameTotals ? 96 : 80 + 8 * i) * GiB, reserve_bytes: GiB })),
    // Small integer GiB sizes make ties common, which is where symmetry breaking could go wrong.
    items: items.map((it, k) => ({
      name: `s${k}`,
      kind: "seat" as const,
      current: it.current % cards,
      footprints: Array.from({ length: cards }, (_, c) => ((fewSizes ? 10 * (1 + (it.size % 3)) : it.size) + (it.perCard ? c : 0)) * GiB),
    })),
    fixed: fixed.map((x, k) => ({ name: `f${k}`, kind: "tenant" as const, card: x.card % cards, bytes: x.size * GiB })),
  }));

describe("solvePlan", () => {
  it("finds the brute-force optimum of the worst spare on random instances up to 8 seats × 3 cards", () => {
    fc.assert(
      fc.property(instance, (input) => {
        const r = solvePlan(input);
        const b = bruteForce(input);
        expect(r.worst_spare_bytes).toBe(b.worst);
        expect(r.optimal).toBe(true);
        expect(r.worst_spare_bound_bytes).toBe(b.worst);
        // the reported spares and moves are those of the assignment
        expect(Math.min(...Object.values(r.spares))).toBe(r.worst_spare_bytes);
        expect(r.moves.length).toBeGreaterThanOrEqual(b.minMoves);
        expect(r.moves.length).toBe(input.items.filter((it) => r.assignment[it.name] !== it.current).length);
      }),
      { numRuns: 600, seed: 20261006 },
    );
  });

  it("finds the brute-force optimum among the layouts that pass kv/boot-check (random boot floors)", () => {
    const withFloors = fc.tuple(
      instance,
      fc.array(fc.option(fc.integer({ min: -10, max: 60 }), { nil: undefined }), { minLength: 8, maxLength: 8 }),
      fc.array(fc.option(fc.integer({ min: -10, max: 40 }), { nil: undefined }), { minLength: 2, maxLength: 2 }),
    );
    fc.assert(
      fc.property(withFloors, ([base, floors, fixedFloors]) => {
        // a seat's floor on each card: utilization × total − footprint − reserve, here drawn directly
        const input: PlanInput = {
          ...base,
          items: base.items.map((it, k) =>
            floors[k] === undefined ? it : { ...it, boot_floors: it.footprints.map((_, c) => (floors[k]! + c) * GiB) },
          ),
          fixed: base.fixed.map((x, k) => (fixedFloors[k] === undefined ? x : { ...x, boot_floor: fixedFloors[k] * GiB })),
        };
        const r = solvePlan(input);
        const b = bruteForce(input);
        expect(r.boots).toBe(b.worst > -Infinity);
        if (!r.boots) return;
        expect(r.worst_spare_bytes).toBe(b.worst);
        expect(r.optimal).toBe(true);
        expect(r.moves.length).toBeGreaterThanOrEqual(b.minMoves);
        // the layout shown (after the fewer-moves pass) keeps every card's floor
        for (const card of input.cards) {
          const floors = [
            ...input.fixed.filter((x) => x.card === card.index).map((x) => x.boot_floor ?? -Infinity),
            ...input.items
              .filter((it) => r.assignment[it.name] === card.index)
              .map((it) => it.boot_floors?.[input.cards.indexOf(card)] ?? -Infinity),
          ];
          expect(r.spares[String(card.index)]).toBeGreaterThanOrEqual(Math.max(-Infinity, ...floors));
        }
      }),
      { numRuns: 600, seed: 20261203 },
    );
  });

  it("does not lose the optimum when identical items meet interchangeable cards (the old solver said 3)", () => {
    // Two empty alike cards and pairs of identical items (11, 11 and 7, 7): trying only the first-tried
    // of two alike cards, and then only later cards for the twin item, excluded the split 11 | 11.
    const sizes: [number, number][] = [
      [7, 0],
      [8, 1],
      [3, 1],
      [7, 1],
      [5, 1],
      [11, 1],
      [11, 0],
    ];
    const input: PlanInput = {
      host: "h",
      cards: [0, 1].map((i) => ({ index: i, total_bytes: 30, reserve_bytes: 0 })),
      items: sizes.map(([size, current], k) => ({ name: `s${k}`, kind: "seat" as const, current, footprints: [size, size] })),
      fixed: [],
    };
    expect(bruteForce(input).worst).toBe(4);
    // sizes in bytes: the proof's grain set to one byte
    expect(solvePlan(input, { resolutionBytes: 1 })).toMatchObject({
      worst_spare_bytes: 4,
      optimal: true,
      worst_spare_bound_bytes: 4,
      resolution_bytes: 1,
    });
  });

  it("moves nothing when today's layout is already optimal", () => {
    const input: PlanInput = {
      host: "h",
      cards: [0, 1].map((i) => ({ index: i, total_bytes: 96 * GiB, reserve_bytes: GiB })),
      items: [
        { name: "a", kind: "seat", current: 0, footprints: [30 * GiB, 30 * GiB] },
        { name: "b", kind: "seat", current: 1, footprints: [30 * GiB, 30 * GiB] },
      ],
      fixed: [],
    };
    const r = solvePlan(input);
    expect(r).toMatchObject({ worst_spare_bytes: 65 * GiB, today_worst_spare_bytes: 65 * GiB, moves: [], assignment: { a: 0, b: 1 } });
  });

  it("moves the fewest seats to reach the optimum: one of two identical seats, not both", () => {
    const input: PlanInput = {
      host: "h",
      cards: [0, 1].map((i) => ({ index: i, total_bytes: 96 * GiB, reserve_bytes: GiB })),
      items: ["a", "b"].map((name) => ({ name, kind: "seat" as const, current: 0, footprints: [30 * GiB, 30 * GiB] })),
      fixed: [],
    };
    const r = solvePlan(input);
    expect(r.worst_spare_bytes).toBe(65 * GiB);
    expect(r.today_worst_spare_bytes).toBe(35 * GiB);
    expect(r.moves).toHaveLength(1);
  });

  it("keeps fixed loads where they are and plans around them", () => {
    const input: PlanInput = {
      host: "h",
      cards: [0, 1].map((i) => ({ index: i, total_bytes: 96 * GiB, reserve_bytes: GiB })),
      items: [{ name: "a", kind: "seat", current: 0, footprints: [20 * GiB, 20 * GiB] }],
      fixed: [
        { name: "big", kind: "seat", card: 0, bytes: 40 * GiB },
        { name: "big", kind: "seat", card: 1, bytes: 40 * GiB },
        { name: "t", kind: "tenant", card: 0, bytes: 3 * GiB },
      ],
    };
    const r = solvePlan(input);
    expect(r.assignment).toMatchObject({ a: 1, big: [0, 1], t: 0 });
    expect(r.spares).toEqual({ "0": 52 * GiB, "1": 35 * GiB });
    expect(r.moves).toEqual([{ name: "a", kind: "seat", from: 0, to: 1 }]);
  });

  it("proves 24 seats × 8 cards within the default budget", () => {
    let seed = 7;
    const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    const weights = [15.3, 27.5, 7.5, 3.8, 1.4, 15, 6, 22.8];
    const cards = Array.from({ length: 8 }, (_, i) => ({ index: i, total_bytes: 96 * GiB, reserve_bytes: GiB }));
    const items = Array.from({ length: 24 }, (_, i) => {
      const f = Math.round((weights[Math.floor(rnd() * weights.length)]! + Math.ceil(rnd() * 20) / 2 + 2) * GiB);
      return { name: `s${i}`, kind: "seat" as const, current: Math.floor(rnd() * 8), footprints: cards.map(() => f) };
    });
    const r = solvePlan({ host: "h", cards, items, fixed: [] });
    expect(r.optimal).toBe(true);
    expect(r.worst_spare_bound_bytes - r.worst_spare_bytes).toBeLessThan(r.resolution_bytes);
  });
});

/** The bench's instance (bench/lib/plan-instance.mjs): seats from the catalog's weights, 3 tenants, 8 × 96 GiB cards. */
function benchInstance(seedArg: number, seats: number): PlanInput {
  let seed = seedArg;
  const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const weights = [15.3, 27.5, 7.5, 3.8, 1.4, 15, 6, 22.8, 14.2, 13.5];
  const cards = Array.from({ length: 8 }, (_, i) => ({ index: i, total_bytes: 96 * GiB, reserve_bytes: GiB }));
  const items = Array.from({ length: seats }, (_, i) => {
    const tenantSized = i >= seats - 3;
    const bytes = tenantSized
      ? Math.ceil(rnd() * 6) * GiB
      : Math.round((weights[Math.floor(rnd() * weights.length)]! + Math.ceil(rnd() * 20) / 2 + 2) * GiB);
    return {
      name: `s${i}`,
      kind: tenantSized ? ("tenant" as const) : ("seat" as const),
      current: Math.floor(rnd() * 8),
      footprints: cards.map(() => bytes),
    };
  });
  return { host: "bench", cards, items, fixed: [] };
}

describe("solvePlan at 40 seats × 8 cards", () => {
  // the optimum of each seed (bytes, proven to the byte by the exact search, resolutionBytes 1, before the
  // grain was introduced); at the default grain the solver may stop anywhere within 1 MiB below it
  it.each([
    [1, -6657199309],
    [2, 536870912],
    [3, -11596411700],
  ])("seed %i: proven optimal to 1 MiB, at least as good as LPT + moves and swaps", (seed, worst) => {
    const input = benchInstance(seed, 40);
    const P = prepare(input);
    const known = Math.max(worstOf(P, greedy(P)), worstOf(P, localSearch(P, greedy(P))), worstOf(P, localSearch(P, P.current as number[])));
    const r = solvePlan(input);
    expect(r.optimal).toBe(true);
    expect(r.resolution_bytes).toBe(2 ** 20);
    expect(r.worst_spare_bytes).toBeGreaterThanOrEqual(known);
    expect(r.worst_spare_bytes).toBeLessThanOrEqual(worst);
    expect(r.worst_spare_bytes).toBeGreaterThan(worst - 2 ** 20);
    expect(r.worst_spare_bound_bytes).toBe(r.worst_spare_bytes + 2 ** 20 - 1);
    expect(Math.min(...Object.values(r.spares))).toBe(r.worst_spare_bytes);
    expect(r.nodes).toBeLessThan(100_000);
  });

  it("says optimal: false with the best found and a bound when the node budget runs out, instead of hanging", () => {
    // seed 5 to the byte: a layout 1 byte better is ruled out only by how the byte counts fall mod 0.1 GiB
    const input = benchInstance(5, 40);
    const r = solvePlan(input, { maxNodes: 50_000, resolutionBytes: 1 });
    expect(r.optimal).toBe(false);
    expect(r.nodes).toBeGreaterThanOrEqual(50_000);
    expect(r.nodes).toBeLessThan(52_000);
    expect(r.worst_spare_bytes).toBe(5153960755);
    expect(r.worst_spare_bound_bytes).toBe(5153960756);
    expect(r.notes.join(" ")).toContain("not proven optimal");
  });

  it("honours a time budget too", () => {
    const r = solvePlan(benchInstance(8, 40), { maxMillis: 50, resolutionBytes: 1 });
    expect(r.optimal).toBe(false);
    expect(r.worst_spare_bound_bytes).toBeGreaterThan(r.worst_spare_bytes);
  });
});

describe("planForHost", () => {
  it("builds the host's input from the fleet, honouring GPU_PIN and tenant pins", () => {
    const mk = (name: string, gpu: string, extra: Record<string, string> = {}) =>
      seat(name, {
        MODEL: "Qwen/Qwen3-8B",
        GPU: gpu,
        MAX_MODEL_LEN: "40960",
        KV_CACHE_MEMORY_BYTES: "8053063680",
        GPU_MEMORY_UTILIZATION: "0.3",
        ...extra,
      });
    const state = fleet(
      [mk("a", "0"), mk("b", "0"), mk("c", "0", { GPU_PIN: "1" })],
      [tenant("pinned", 0, 3 * GiB, true), tenant("free", 0, 3 * GiB)],
    );
    const r = planForHost(state, policyOf(), pack, "fv-ml1");
    const fp = Math.round(15.3 * GiB) + 9.5 * GiB;
    expect(r.assignment).toMatchObject({ c: 0, pinned: 0 });
    // c + pinned stay on 0; the best is two of a, b, free on gpu 1 … a and b split across the cards
    const on1 = Object.entries(r.assignment)
      .filter(([, g]) => g === 1)
      .map(([n]) => n)
      .sort();
    expect(on1.length).toBeGreaterThanOrEqual(1);
    expect(r.worst_spare_bytes).toBe(Math.min(...Object.values(r.spares)));
    expect(r.today_worst_spare_bytes).toBe(95 * GiB - 3 * fp - 6 * GiB);
    expect(r.worst_spare_bytes).toBeGreaterThan(r.today_worst_spare_bytes ?? 0);
    expect(r.moves.every((m) => m.name !== "c" && m.name !== "pinned")).toBe(true);
  });

  it("keeps a seat without a byte pin alone on its card (kv/unpinned-shared-card), at the cost of worst spare", () => {
    const pinnedSeat = (name: string, gpu: string) =>
      seat(name, {
        MODEL: "Qwen/Qwen3-8B",
        GPU: gpu,
        MAX_MODEL_LEN: "40960",
        KV_CACHE_MEMORY_BYTES: "8053063680",
        GPU_MEMORY_UTILIZATION: "0.3",
      });
    // loose: unpinned at 0.2 × 96 GiB = 19.2 GiB; each pinned seat 15.3 + 7.5 + 2 = 24.8 GiB.
    // Sharing would give 95 − 19.2 − 24.8 = 51 | 95 − 49.6 = 45.4; alone it is 75.8 | 95 − 74.4 = 20.6.
    const loose = seat("loose", { MODEL: "Qwen/Qwen3-8B", GPU: "0", MAX_MODEL_LEN: "4096", GPU_MEMORY_UTILIZATION: "0.2" });
    const state = fleet([loose, pinnedSeat("p1", "0"), pinnedSeat("p2", "1"), pinnedSeat("p3", "1")]);
    const r = planForHost(state, policyOf(), pack, "fv-ml1");
    const fp = Math.round(15.3 * GiB) + 9.5 * GiB;
    expect(r.today_worst_spare_bytes).toBe(95 * GiB - 2 * fp);
    expect(r).toMatchObject({ optimal: true, boots: true });
    const alone = r.assignment.loose;
    expect(
      Object.entries(r.assignment)
        .filter(([, g]) => g === alone)
        .map(([n]) => n),
    ).toEqual(["loose"]);
    expect(r.worst_spare_bytes).toBe(95 * GiB - 3 * fp);
  });

  it("keeps a TP 2 seat fixed and says so", () => {
    const big = seat("big", {
      MODEL: "Qwen/Qwen3-32B",
      GPU: "0,1",
      TP: "2",
      MAX_MODEL_LEN: "32768",
      KV_CACHE_MEMORY_BYTES: String(4 * GiB),
    });
    const r = planForHost(fleet([big]), policyOf(), pack, "fv-ml1");
    expect(r.assignment).toEqual({ big: [0, 1] });
    expect(r.notes.join(" ")).toContain("big spans gpus 0,1");
  });
});

describe("renderPlan", () => {
  it("prints a search stopped on its budget with its gap in GiB, never in bytes", () => {
    const input = benchInstance(5, 40);
    const r = solvePlan(input, { maxNodes: 50_000, resolutionBytes: 1 });
    expect(r.worst_spare_bound_bytes - r.worst_spare_bytes).toBe(1);
    const text = renderPlan(r, fleet([]), { color: false });
    expect(text).toContain("not proven: the optimum is at most under 0.001 GiB better");
    expect(text).not.toMatch(/\bbytes?\b/);
  });

  it.each([
    [1, "under 0.001 GiB"],
    [4 * 2 ** 20, "0.004 GiB"],
    [Math.round(0.0702 * GiB), "0.07 GiB"],
    [Math.round(2.4 * GiB), "2.4 GiB"],
  ])("gap %i bytes → %s", (bytes, text) => {
    expect(gapGiB(bytes)).toBe(text);
  });

  it("says when a layout is proven to the 1 MiB grain, and when to the byte", () => {
    const input = benchInstance(1, 24);
    expect(renderPlan(solvePlan(input), fleet([]), { color: false })).toMatch(/proven optimal to 1 MiB \([\d,]+ nodes\)/);
    const whole: PlanInput = {
      host: "h",
      cards: [0, 1].map((i) => ({ index: i, total_bytes: 96 * GiB, reserve_bytes: GiB })),
      items: [{ name: "a", kind: "seat", current: 0, footprints: [30 * GiB, 30 * GiB] }],
      fixed: [],
    };
    expect(renderPlan(solvePlan(whole), fleet([]), { color: false })).toMatch(/proven optimal \(\d+ nodes\)/);
  });
});
