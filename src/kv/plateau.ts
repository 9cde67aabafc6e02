// gpu/plateau (docs/usage-observe.md), as a pure function for the check to call: a card's observed
// plateau free memory, less what the change adds to the card, must stay at or above the card's
// reserve — headroom counts at plateau, not at boot. The check computes `addedBytes` (Σ footprints
// after − before on the card, src/kv/card-usage.ts) and reads the plateau from the observed file.
import { size } from "./format.js";

export interface PlateauInput {
  host: string;
  index: number;
  /** From observed.yaml: the least free memory the card reached. */
  plateauFreeBytes: number;
  reserveBytes: number;
  /** What the change adds to the card's predicted footprint (negative when it frees memory). */
  addedBytes: number;
  /** When the plateau was observed (for the message), ISO. */
  observedAt?: string | null;
}

export interface PlateauFinding {
  message: string;
  /** The fix, as the message's last clause also says it. */
  fix: string;
  data: {
    host: string;
    gpu: number;
    plateau_free_bytes: number;
    added_bytes: number;
    reserve_bytes: number;
    /** plateau − added: what would be free at plateau after the change. */
    free_after_bytes: number;
    /** reserve − free_after: what must be freed (or not added) to pass. */
    short_bytes: number;
  };
}

export function plateauFinding(i: PlateauInput): PlateauFinding | null {
  const freeAfter = i.plateauFreeBytes - i.addedBytes;
  if (freeAfter >= i.reserveBytes) return null;
  const short = i.reserveBytes - freeAfter;
  const card = `${i.host} GPU ${i.index}`;
  const change =
    i.addedBytes > 0 ? ` − ${size(i.addedBytes)} this change adds` : i.addedBytes < 0 ? ` + ${size(-i.addedBytes)} this change frees` : "";
  const when = i.observedAt ? ` (observed ${i.observedAt.slice(0, 10)})` : "";
  const fix =
    i.addedBytes > 0 && i.addedBytes >= short
      ? `add at most ${size(i.addedBytes - short)} to this card (lower the pin or move a seat: kvgate plan), or free ${size(short)} elsewhere on it`
      : `free ${size(short)} on this card (lower a pin, move a seat: kvgate plan), then re-observe its plateau`;
  return {
    message:
      `${card}: ${size(i.plateauFreeBytes)} free at ` +
      `plateau${when}${change ? `${change} leaves ${size(freeAfter)}` : ""}, below the reserve of ${size(i.reserveBytes)} ` +
      `by ${size(short)}: headroom counts at plateau, not at boot; ${fix}`,
    fix,
    data: {
      host: i.host,
      gpu: i.index,
      plateau_free_bytes: i.plateauFreeBytes,
      added_bytes: i.addedBytes,
      reserve_bytes: i.reserveBytes,
      free_after_bytes: freeAfter,
      short_bytes: short,
    },
  };
}

/**
 * What a change adds to a card, for gpu/plateau: Σ footprints after − before (src/kv/ledger.ts
 * used_bytes). Without a before state (check --all), what the layout has added since the plateau was
 * observed: used now − the predicted_used_bytes observed.yaml recorded; without that either, nothing is
 * known to have been added (0), and the plateau alone is checked.
 */
export function addedToCard(afterUsedBytes: number, beforeUsedBytes: number | null, observedPredictedUsedBytes: number | null): number {
  if (beforeUsedBytes !== null) return afterUsedBytes - beforeUsedBytes;
  if (observedPredictedUsedBytes !== null) return afterUsedBytes - observedPredictedUsedBytes;
  return 0;
}
