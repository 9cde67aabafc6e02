// The planner's input and output: plain numbers, so the solver can be tested and benchmarked
// without a fleet, and `kvgate plan --format json` prints the result as it is.

export interface PlanCard {
  index: number;
  total_bytes: number;
  reserve_bytes: number;
}

/** Something the planner may move: a single-card vLLM seat or a tenant without `pin: true`. */
export interface PlanItem {
  name: string;
  kind: "seat" | "tenant";
  /** Card index today; null when it sits on no listed card. */
  current: number | null;
  /** Footprint on each card, in the order of `PlanInput.cards` (a utilization-sized seat's depends on the card). */
  footprints: number[];
  /**
   * kv/boot-check as a constraint: for a vLLM seat, on each card, the spare (total − reserve − Σ
   * footprints) that card must keep for the seat to boot last behind its neighbours, i.e. utilization ×
   * total − footprint − reserve (see bootFloor). Absent for a tenant, which asks nothing at boot.
   */
  boot_floors?: number[];
}

/** Something that stays: a pinned seat or tenant, or a seat spanning TP > 1 cards (one row per card). */
export interface PlanFixed {
  name: string;
  kind: "seat" | "tenant";
  card: number;
  bytes: number;
  /** A fixed vLLM seat's boot floor on this card (see PlanItem.boot_floors). */
  boot_floor?: number;
}

export interface PlanInput {
  host: string;
  cards: PlanCard[];
  items: PlanItem[];
  fixed: PlanFixed[];
}

export interface PlanMove {
  name: string;
  kind: "seat" | "tenant";
  from: number | null;
  to: number;
}

interface PlanCardResult {
  index: number;
  total_bytes: number;
  reserve_bytes: number;
  used_bytes: number;
  spare_bytes: number;
  occupants: string[];
}

export interface PlanResult {
  host: string;
  /** Every seat and tenant of the host → its card (a multi-card seat → its cards). */
  assignment: Record<string, number | number[]>;
  /** Card index → spare bytes (total − reserve − Σ footprints) under the assignment. */
  spares: Record<string, number>;
  worst_spare_bytes: number;
  /** The worst card's spare in today's layout; null when something sits on no listed card. */
  today_worst_spare_bytes: number | null;
  moves: PlanMove[];
  cards: PlanCardResult[];
  /** Branch-and-bound nodes visited: the proof's size (0 when there is nothing to place). */
  nodes: number;
  /** The search ran to the end, so no layout has a larger worst spare; false only past the search budget. */
  optimal: boolean;
  /** No layout's worst spare exceeds this; equals `worst_spare_bytes` when `optimal`. */
  worst_spare_bound_bytes: number;
  /**
   * The proof's grain: layouts whose worst spares differ by less than this are counted as equal, so
   * `optimal` means no layout's worst spare is `resolution_bytes` or more above this one's (footprints
   * are byte counts; proving the last byte is a number-partitioning problem no CLI budget affords).
   */
  resolution_bytes: number;
  /** Every card lets each of its vLLM seats boot last (kv/boot-check holds); false when no layout does. */
  boots: boolean;
  notes: string[];
}
