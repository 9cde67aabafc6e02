// gpu/plateau's arithmetic lives with the other card arithmetic (src/kv/plateau.ts), where the check
// can reach it; `observe` shows the same figures.
export { addedToCard, plateauFinding } from "../kv/plateau.js";
