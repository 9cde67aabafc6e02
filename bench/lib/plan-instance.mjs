// One `kvgate plan` solve of 24 vLLM seats and tenants over 8 cards of 96 GiB (1 GiB reserve each),
// in a fresh process: seats drawn from the catalog's weights with pins in 0.5 GiB steps plus 2 GiB
// overhead, from a scrambled starting layout. Usage: node plan-instance.mjs <solver bundle> <seed> [seats]
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
  const bytes = tenantSized ? Math.ceil(rnd() * 6) * GiB : Math.round((weights[Math.floor(rnd() * weights.length)] + Math.ceil(rnd() * 20) / 2 + 2) * GiB);
  return { name: `s${i}`, kind: tenantSized ? "tenant" : "seat", current: Math.floor(rnd() * 8), footprints: cards.map(() => bytes) };
});
const r = solvePlan({ host: "bench", cards, items, fixed: [] });
if (process.env.PLAN_VERBOSE) console.log(JSON.stringify({ seed: seedArg, nodes: r.nodes, worst_gib: r.worst_spare_bytes / GiB, moves: r.moves.length }));
