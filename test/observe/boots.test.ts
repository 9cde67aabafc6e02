// Boots, boot free, plateau and creep (contract section 16), worked by hand; and gpu/plateau's rule.
import { describe, expect, test } from "vitest";
import { bootStarts, splitBoots } from "../../src/observe/boots.js";
import { observeCard, plateauBoot } from "../../src/observe/cards.js";
import { addedToCard, plateauFinding } from "../../src/observe/plateau.js";
import type { CardRead } from "../../src/observe/collect.js";
import type { CardUsage } from "../../src/kv/card-usage.js";
import { GiB, MiB } from "../../src/units/bytes.js";

const MIN = 60_000;

describe("boots: the first sample, and each sample below half the previous one", () => {
  test.each([
    { used: [10, 9, 4, 8, 8, 3, 2], starts: [0, 2, 5] }, // 4 < 9/2; 3 < 8/2; 2 is not < 3/2
    { used: [10, 5], starts: [0] }, // exactly half is not below half
    { used: [10, 4.99], starts: [0, 1] },
    { used: [90, 60, 20, 2, 50, 90], starts: [0, 2, 3] }, // a stop in steps: 60 → 20 and 20 → 2 both start one
    { used: [5], starts: [0] },
    { used: [], starts: [] },
  ])("$used → boots at $starts", ({ used, starts }) => {
    expect(bootStarts(used)).toEqual(starts);
  });
});

describe("per boot: free 10 minutes in, the least free, and the creep between them", () => {
  // One card, 100 MiB total. Boot 1 at 0: loads, 40 free at +10 min, creeps to 12 at +40 min.
  // Boot 2 at +50 (used 90 → 30, below half): 35 free at +60 (10 min in), least 31 at +70.
  // Boot 3 at +80, last sample at +85: shorter than 10 minutes.
  const times = [0, 5, 10, 20, 40, 45, 50, 55, 60, 70, 80, 85].map((m) => m * MIN);
  const used = [20, 50, 60, 75, 88, 90, 30, 50, 65, 69, 10, 40];
  const free = used.map((u) => 100 - u);

  test("boot 1: 40 free at +10 min (the first sample ≥ 10 minutes in), plateau 10 at +45, creep 30", () => {
    const [b1, b2, b3] = splitBoots(times, used, free);
    expect(b1).toMatchObject({
      start: 0,
      end: 45 * MIN,
      samples: 6,
      boot_free_bytes: 40,
      boot_free_at: 10 * MIN,
      plateau_free_bytes: 10,
      plateau_at: 45 * MIN,
      creep_bytes: 30,
    });
    // boot 2 starts at +50; +55 is 5 minutes in, +60 is 10: 35 free; the least is 31 at +70.
    expect(b2).toMatchObject({
      samples: 4,
      start: 50 * MIN,
      end: 70 * MIN,
      boot_free_bytes: 35,
      plateau_free_bytes: 31,
      creep_bytes: 4,
    });
    // boot 3 ends 5 minutes in: no boot free, no creep; its plateau is its least free, 60.
    expect(b3).toMatchObject({ samples: 2, start: 80 * MIN, boot_free_bytes: null, creep_bytes: null, plateau_free_bytes: 60 });
  });

  test("the card's plateau is the least of its boots', with the creep of that boot; against the reserve and the prediction", () => {
    const series: CardRead = {
      host: "h",
      index: 0,
      samples: times.length,
      first: 0,
      last: 85 * MIN,
      boots: splitBoots(times, used, free),
      totalBytes: 100,
      totalSource: "metrics",
      chart: null,
    };
    const ledger = {
      host: "h",
      index: 0,
      total_bytes: 100,
      reserve_bytes: 15,
      used_bytes: 70,
      spare_bytes: 15,
      entries: [],
      shared: true,
      ledgerSized: false,
    } as CardUsage;
    const o = observeCard(series, ledger);
    expect(o).toMatchObject({
      plateau_free_bytes: 10,
      plateau_boot: 1,
      reserve_bytes: 15,
      plateau_margin_bytes: -5, // 10 free at plateau, 15 to keep
      predicted_used_bytes: 70,
      predicted_free_bytes: 30, // 100 − 70
      unexplained_bytes: 20, // 30 predicted free − 10 observed
      last_boot_hours: 0.1,
    });
    expect(o.boots).toHaveLength(3);
    // Its boot free and creep are that boot's, held once (in boots), not repeated on the card.
    expect(plateauBoot(o)).toMatchObject({ boot_free_bytes: 40, creep_bytes: 30, plateau_free_bytes: 10 });
    expect(o).not.toHaveProperty("boot_free_bytes");
    expect(o).not.toHaveProperty("creep_bytes");
    expect(o.notes.join("\n")).toMatch(/the last boot ran 0\.1 h: creep runs for 1–2 days/);
    expect(o.notes.join("\n")).toMatch(/less free than its 15 B reserve/);
    const alone = observeCard(series, undefined);
    expect(alone).toMatchObject({ reserve_bytes: null, plateau_margin_bytes: null, predicted_used_bytes: null });
    expect(alone.notes.join("\n")).toMatch(/kvgate.yaml does not list h GPU 0/);
  });
});

describe("gpu/plateau: plateau free − what the change adds must stay ≥ the reserve", () => {
  const base = { host: "fv-ml1", index: 0, reserveBytes: 1 * GiB };
  test.each([
    { plateau: 2 * GiB, added: 0, short: null },
    { plateau: 2 * GiB, added: 1 * GiB, short: null }, // exactly the reserve left: not below it
    { plateau: 2 * GiB, added: 1.5 * GiB, short: 0.5 * GiB },
    { plateau: 60 * MiB, added: 0, short: 1 * GiB - 60 * MiB }, // the seeds' GPU 0: 964 MiB short with no change at all
    { plateau: 60 * MiB, added: -2 * GiB, short: null }, // a change that frees 2 GiB clears it
    { plateau: 60 * MiB, added: -512 * MiB, short: 452 * MiB },
  ])("plateau $plateau B, change adds $added B → short $short B", ({ plateau, added, short }) => {
    const f = plateauFinding({ ...base, plateauFreeBytes: plateau, addedBytes: added });
    if (short === null) {
      expect(f).toBeNull();
      return;
    }
    expect(f?.data).toEqual({
      host: "fv-ml1",
      gpu: 0,
      plateau_free_bytes: plateau,
      added_bytes: added,
      reserve_bytes: 1 * GiB,
      free_after_bytes: plateau - added,
      short_bytes: short,
    });
    // The fix, applied: add `short` less to the card (or free it) and the finding is gone.
    expect(plateauFinding({ ...base, plateauFreeBytes: plateau, addedBytes: added - short })).toBeNull();
    expect(plateauFinding({ ...base, plateauFreeBytes: plateau, addedBytes: added - short + 1 })).not.toBeNull();
  });

  test("the message says the numbers and the fix", () => {
    const f = plateauFinding({ ...base, plateauFreeBytes: 2 * GiB, addedBytes: 1.5 * GiB, observedAt: "2026-10-07T13:12:00.000Z" });
    expect(f?.message).toBe(
      "fv-ml1 GPU 0: 2 GiB free at plateau (observed 2026-10-07) − 1.5 GiB this change adds leaves 0.5 GiB, below the reserve of 1 GiB by 0.5 GiB: headroom counts at plateau, not at boot; add at most 1 GiB to this card (lower the pin or move a seat: kvgate plan), or free 0.5 GiB elsewhere on it",
    );
    const g = plateauFinding({ ...base, plateauFreeBytes: 60 * MiB, addedBytes: 0 });
    expect(g?.message).toBe(
      "fv-ml1 GPU 0: 60 MiB free at plateau, below the reserve of 1 GiB by 0.94 GiB: headroom counts at plateau, not at boot; free 0.94 GiB on this card (lower a pin, move a seat: kvgate plan), then re-observe its plateau",
    );
  });
});

describe("what a change adds to a card", () => {
  test.each([
    { after: 90 * GiB, before: 88 * GiB, observed: 80 * GiB, added: 2 * GiB }, // a change: after − before
    { after: 88 * GiB, before: 90 * GiB, observed: null, added: -2 * GiB }, // it frees memory
    { after: 90 * GiB, before: null, observed: 89 * GiB, added: 1 * GiB }, // --all: since the observation
    { after: 90 * GiB, before: null, observed: null, added: 0 }, // nothing to compare with
  ])("after $after, before $before, observed under $observed → $added", ({ after, before, observed, added }) => {
    expect(addedToCard(after, before, observed)).toBe(added);
  });
});
