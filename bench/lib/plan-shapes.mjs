// One `kvgate plan` solve in a fresh process, on the host shapes of issue 13 item 8: 8 cards of 96 GiB
// (1 GiB reserve each), every seat movable, a scrambled starting layout.
// - random: N seats of random byte sizes, uniform from 1 GiB to twice the mean, the mean filling 85 %
//   of the cards (64 seats: 10.6 GiB on average);
// - equal: N seats of nearly equal size (8 × 88 GiB / N, ± 1 %), where the count of seats per card
//   decides the worst spare (37–61 seats stopped at the node budget with 1.6–2.4 GiB gaps before the
//   cardinality bounds).
// Usage: node plan-shapes.mjs <solver bundle> <random|equal> <seed> <seats>   (PLAN_VERBOSE=1 prints the result)
const [bundle, shape, seedArg, seatsArg] = process.argv.slice(2);
const { solvePlan } = await import(bundle);
const GiB = 2 ** 30;
const N = Number(seatsArg);
let seed = Number(seedArg);
const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
const cards = Array.from({ length: 8 }, (_, i) => ({ index: i, total_bytes: 96 * GiB, reserve_bytes: GiB }));
const size = () => {
  if (shape === "random") return Math.round((1 + rnd() * ((2 * 8 * 95 * 0.85) / N - 2)) * GiB);
  if (shape === "equal") return Math.round(((8 * 88) / N) * GiB * (1 + (rnd() - 0.5) * 0.02));
  throw new Error(`unknown shape ${shape}: random or equal`);
};
const items = Array.from({ length: N }, (_, i) => {
  const bytes = size();
  return { name: `s${i}`, kind: "seat", current: Math.floor(rnd() * 8), footprints: cards.map(() => bytes) };
});
const t0 = performance.now();
const r = solvePlan({ host: "bench", cards, items, fixed: [] });
const ms = performance.now() - t0;
if (process.env.PLAN_VERBOSE) {
  const gap = r.worst_spare_bound_bytes - r.worst_spare_bytes;
  console.log(
    JSON.stringify({
      shape,
      seats: N,
      seed: seedArg,
      optimal: r.optimal,
      resolution_mib: r.resolution_bytes / 2 ** 20,
      nodes: r.nodes,
      solve_ms: Math.round(ms),
      worst_gib: +(r.worst_spare_bytes / GiB).toFixed(3),
      gap_gib: +(gap / GiB).toFixed(4),
    }),
  );
}
