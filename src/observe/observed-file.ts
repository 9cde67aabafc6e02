// observed.yaml: the per-card plateau figures `kvgate observe --write` records and gpu/plateau reads
// (kvgate.yaml `observed: observed.yaml`). One zod schema for the writer's shape and the reader's
// check; the reader never throws: a malformed file comes back as problems with their lines, for the
// check to report as findings.
import * as z from "zod";
import { size } from "../kv/format.js";
import { formatZodIssues, parseYamlWithLines } from "../config/issues.js";
import type { CardObservation } from "./cards.js";

const bytes = z.number().int().nonnegative();
const isoTime = z.string().refine((s) => !Number.isNaN(Date.parse(s)), { message: "expected an ISO 8601 time" });

export const ObservedCardSchema = z.strictObject({
  host: z.string().min(1),
  index: z.number().int().nonnegative(),
  plateau_free_bytes: bytes.describe("The least free memory the card reached in the window."),
  plateau_at: isoTime.optional(),
  boot_free_bytes: bytes.nullable().optional().describe("Free 10 minutes after the boot that reached the plateau."),
  creep_bytes: bytes.nullable().optional(),
  total_bytes: bytes.optional(),
  reserve_bytes: bytes.nullable().optional(),
  predicted_used_bytes: bytes.nullable().optional().describe("kvgate's footprint for the card when it was observed."),
  boots: z.number().int().positive().optional(),
  samples: z.number().int().positive().optional(),
  last_boot_hours: z.number().nonnegative().optional(),
});

export const ObservedFileSchema = z
  .strictObject({
    version: z.literal(1),
    from: isoTime,
    until: isoTime,
    sources: z.array(z.string()).optional(),
    cards: z.array(ObservedCardSchema),
  })
  .superRefine((f, ctx) => {
    const seen = new Set<string>();
    f.cards.forEach((c, i) => {
      const key = `${c.host}\0${c.index}`;
      if (seen.has(key)) ctx.addIssue({ code: "custom", path: ["cards", i], message: `${c.host} GPU ${c.index} is listed twice` });
      seen.add(key);
    });
  });

export type ObservedFile = z.infer<typeof ObservedFileSchema>;
export type ObservedCard = z.infer<typeof ObservedCardSchema>;

export type ObservedRead = { ok: true; value: ObservedFile } | { ok: false; problems: { line: number | null; message: string }[] };

export function readObservedFile(text: string, file: string): ObservedRead {
  const load = parseYamlWithLines(text, file);
  if (load.errors.length > 0) return { ok: false, problems: load.errors.map((m) => ({ line: lineIn(m), message: m })) };
  const parsed = ObservedFileSchema.safeParse(load.value);
  if (!parsed.success) return { ok: false, problems: formatZodIssues(parsed.error, load, file).map((m) => ({ line: lineIn(m), message: m })) };
  return { ok: true, value: parsed.data };
}

function lineIn(message: string): number | null {
  const m = /:(\d+)\)?(?::|$)/.exec(message);
  return m ? Number(m[1]) : null;
}

const q = (s: string): string => JSON.stringify(s);

export function writeObservedFile(cards: CardObservation[], sources: string[]): string {
  const from = cards.map((c) => c.from).sort()[0] ?? new Date(0).toISOString();
  const until = cards.map((c) => c.until).sort().slice(-1)[0] ?? from;
  const lines = [
    "# GPU memory at plateau, per card: written by `kvgate observe --write` from monitoring.",
    "# `kvgate check` (gpu/plateau) reads it when kvgate.yaml says `observed: <this file>`: a change may add",
    "# to a card only what its plateau free memory holds above the reserve. Re-observe after a layout",
    "# change: a plateau describes the layout it was measured under (predicted_used_bytes records it).",
    "version: 1",
    `from: ${q(from)}`,
    `until: ${q(until)}`,
    "sources:",
    ...sources.map((s) => `  - ${q(s)}`),
    cards.length === 0 ? "cards: []" : "cards:",
  ];
  for (const c of cards) {
    lines.push(`  - host: ${q(c.host)}`);
    lines.push(`    index: ${c.index}`);
    lines.push(`    plateau_free_bytes: ${c.plateau_free_bytes}   # ${size(c.plateau_free_bytes)}`);
    lines.push(`    plateau_at: ${q(c.plateau_at)}`);
    lines.push(`    boot_free_bytes: ${c.boot_free_bytes ?? "null"}${c.boot_free_bytes === null ? "" : `   # ${size(c.boot_free_bytes)} 10 minutes after that boot`}`);
    lines.push(`    creep_bytes: ${c.creep_bytes ?? "null"}${c.creep_bytes === null ? "" : `   # ${size(c.creep_bytes)}`}`);
    lines.push(`    total_bytes: ${c.total_bytes}`);
    lines.push(`    reserve_bytes: ${c.reserve_bytes ?? "null"}`);
    lines.push(`    predicted_used_bytes: ${c.predicted_used_bytes ?? "null"}`);
    lines.push(`    boots: ${c.boots.length}`);
    lines.push(`    samples: ${c.samples}`);
    lines.push(`    last_boot_hours: ${c.last_boot_hours}`);
  }
  return lines.join("\n") + "\n";
}
