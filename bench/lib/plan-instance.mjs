// One `kvgate plan` solve of N vLLM seats and tenants (24 by default) over 8 cards of 96 GiB (1 GiB
// reserve each), in a fresh process: seats drawn from the catalog's weights with pins in 0.5 GiB steps
// plus 2 GiB overhead, the last three tenants of 1-6 GiB, from a scrambled starting layout.
// Usage: node plan-instance.mjs <solver bundle> <seed> [seats]   (PLAN_VERBOSE=1 prints the result)
const [bundle, seedArg, seatsArg] = process.argv.slice(2);
const SEATS = Number(seatsArg ?? 24);
const { solvePlan } = await import(bundle);
const GiB = 2 ** 30;
let seed = Number(seedArg ?? 1);
const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
const weights = [15.3, 27.5, 7.5, 3.8, 1.4, 15, 6, 22.8, 14.2, 13.5];
const cards = Array.from({ length: 8 }, (_, i) => ({ index: i, total_bytes: 96 * GiB, reserve_bytes: GiB }));
const items = Array.from({ length: SEATS }, (_, i) => {
  const tenantSized = i >= SEATS - 3; // three tenants of 1-6 GiB
  const bytes = tenantSized
    ? Math.ceil(rnd() * 6) * GiB
    : Math.round((weights[Math.floor(rnd() * weights.length)] + Math.ceil(rnd() * 20) / 2 + 2) * GiB);
  return { name: `s${i}`, kind: tenantSized ? "tenant" : "seat", current: Math.floor(rnd() * 8), footprints: cards.map(() => bytes) };
});
const t0 = performance.now();
const r = solvePlan({ host: "bench", cards, items, fixed: [] });
const ms = performance.now() - t0;
if (process.env.PLAN_VERBOSE) {
  const gap = r.worst_spare_bound_bytes - r.worst_spare_bytes;
  console.log(
    JSON.stringify({
      seats: SEATS,
      seed: seedArg,
      optimal: r.optimal,
      nodes: r.nodes,
      solve_ms: Math.round(ms),
      worst_gib: r.worst_spare_bytes / GiB,
      gap_bytes: gap,
      moves: r.moves.length,
    }),
  );
}
