// Per card: the boots, the card's plateau (the least free memory of any boot in the window — the
// conservative figure; use --since to start after a layout change), and how it compares with what
// kvgate predicts for the card from the working tree (src/kv/card-usage.ts, the card table of `explain`
// and gpu/fits): the reserve, the predicted footprint, and the memory the prediction does not explain.
import type { CardUsage } from "../kv/card-usage.js";
import { size } from "../kv/format.js";
import type { Boot } from "./boots.js";
import type { CardRead } from "./collect.js";

/** Creep runs for 1–2 days after a boot (the seeds' GPU 0): a younger last boot may still fall. */
const SETTLED_HOURS = 48;

interface BootJson {
  start: string;
  end: string;
  samples: number;
  boot_free_bytes: number | null;
  plateau_free_bytes: number;
  plateau_at: string;
  creep_bytes: number | null;
}

export interface CardObservation {
  host: string;
  index: number;
  samples: number;
  from: string;
  until: string;
  total_bytes: number;
  total_source: "metrics" | "fleet";
  boots: BootJson[];
  plateau_free_bytes: number;
  plateau_at: string;
  /** The boot that reached the plateau, 1-based into `boots` (its boot free and creep are there). */
  plateau_boot: number;
  last_boot_hours: number;
  /** kvgate's view of the card from the working tree; null when kvgate.yaml does not list it. */
  reserve_bytes: number | null;
  predicted_used_bytes: number | null;
  predicted_spare_bytes: number | null;
  /** total − predicted footprint: what the card would have free if the prediction were the whole story. */
  predicted_free_bytes: number | null;
  /** plateau free − reserve: below zero, the card eats its reserve at plateau. */
  plateau_margin_bytes: number | null;
  /** predicted free − plateau free: memory the card holds that the sizing does not count. */
  unexplained_bytes: number | null;
  /** The card holds another engine's service (radiance): the prediction leaves its footprint out. */
  partial_prediction: boolean;
  notes: string[];
}

const iso = (ms: number): string => new Date(ms).toISOString();

/** The boot that reached the card's plateau. */
export function plateauBoot(c: CardObservation): BootJson {
  return c.boots[c.plateau_boot - 1] as BootJson;
}

function bootJson(b: Boot): BootJson {
  return {
    start: iso(b.start),
    end: iso(b.end),
    samples: b.samples,
    boot_free_bytes: b.boot_free_bytes,
    plateau_free_bytes: b.plateau_free_bytes,
    plateau_at: iso(b.plateau_at),
    creep_bytes: b.creep_bytes,
  };
}

export function observeCard(s: CardRead, ledger: CardUsage | undefined): CardObservation {
  const boots = s.boots;
  let worst = boots[0] as Boot;
  for (const b of boots) if (b.plateau_free_bytes < worst.plateau_free_bytes) worst = b;
  const last = boots[boots.length - 1] as Boot;
  const notes: string[] = [];
  const lastHours = (last.end - last.start) / 3_600_000;
  if (lastHours < SETTLED_HOURS)
    notes.push(`the last boot ran ${lastHours.toFixed(1)} h: creep runs for 1–2 days, its plateau may still fall`);
  const predictedFree = ledger ? s.totalBytes - ledger.used_bytes : null;
  const margin = ledger ? worst.plateau_free_bytes - ledger.reserve_bytes : null;
  if (!ledger) notes.push(`kvgate.yaml does not list ${s.host} GPU ${s.index}: no reserve or prediction to compare with`);
  else if (ledger.ledgerSized) notes.push("a radiance endpoint sits on this card: its footprint is not in the prediction");
  if (margin !== null && margin < 0)
    notes.push(
      `at plateau the card had ${size(-margin)} less free than its ${size(ledger?.reserve_bytes ?? 0)} reserve: headroom counts at plateau, not at boot`,
    );
  return {
    host: s.host,
    index: s.index,
    samples: s.samples,
    from: iso(s.first),
    until: iso(s.last),
    total_bytes: s.totalBytes,
    total_source: s.totalSource,
    boots: boots.map(bootJson),
    plateau_free_bytes: worst.plateau_free_bytes,
    plateau_at: iso(worst.plateau_at),
    plateau_boot: boots.indexOf(worst) + 1,
    last_boot_hours: Math.round(lastHours * 10) / 10,
    reserve_bytes: ledger?.reserve_bytes ?? null,
    predicted_used_bytes: ledger?.used_bytes ?? null,
    predicted_spare_bytes: ledger?.spare_bytes ?? null,
    predicted_free_bytes: predictedFree,
    plateau_margin_bytes: margin,
    unexplained_bytes: predictedFree === null ? null : predictedFree - worst.plateau_free_bytes,
    partial_prediction: ledger?.ledgerSized ?? false,
    notes,
  };
}
