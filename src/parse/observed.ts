// observed.yaml: the per-card plateau figures and per-seat KV evidence `kvgate observe --write` records
// (src/observe/), which gpu/plateau and kv/preempted read through the fleet loader (kvgate.yaml
// `observed: observed.yaml`). One zod schema
// for the writer's shape and the reader's check; the reader never throws: a malformed file comes back
// as problems with their lines, for the check to report as findings.
import * as z from "zod";
import { formatZodIssues, lineOf, parseYamlWithLines } from "../config/issues.js";

const bytes = z.number().int().nonnegative();
const isoTime = z.string().refine((s) => !Number.isNaN(Date.parse(s)), { message: "expected an ISO 8601 time" });

const ObservedCardSchema = z.strictObject({
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

const PreemptionWindowSchema = z.strictObject({
  from: isoTime.nullable().describe("null: since the engine started, a time the metrics did not give."),
  until: isoTime,
  preemptions: z.number().int().positive(),
});

const ObservedSeatSchema = z.strictObject({
  service: z.string().min(1),
  kv_bytes: bytes.nullable().optional().describe("The seat's KV (per GPU) when it was observed."),
  peak_kv_usage: z.number().min(0).max(1).nullable().optional().describe("vllm:kv_cache_usage_perc at its highest."),
  preemptions: z.number().int().nonnegative(),
  windows: z.array(PreemptionWindowSchema).optional(),
});

const ObservedFileSchema = z
  .strictObject({
    version: z.literal(1),
    from: isoTime,
    until: isoTime,
    sources: z.array(z.string()).optional(),
    cards: z.array(ObservedCardSchema),
    seats: z.array(ObservedSeatSchema).optional(),
  })
  .superRefine((f, ctx) => {
    const seen = new Set<string>();
    f.cards.forEach((c, i) => {
      const key = `${c.host}\0${c.index}`;
      if (seen.has(key)) ctx.addIssue({ code: "custom", path: ["cards", i], message: `${c.host} GPU ${c.index} is listed twice` });
      seen.add(key);
    });
    const seats = new Set<string>();
    (f.seats ?? []).forEach((s, i) => {
      if (seats.has(s.service)) ctx.addIssue({ code: "custom", path: ["seats", i], message: `the seat ${s.service} is listed twice` });
      seats.add(s.service);
    });
  });

type ObservedFile = z.infer<typeof ObservedFileSchema>;

export type ObservedRead =
  /** `cardLines[i]`: the line of `cards[i]` in the file (where gpu/plateau reports that card); `seatLines` likewise. */
  | { ok: true; value: ObservedFile; cardLines: number[]; seatLines?: number[] }
  | { ok: false; problems: { line: number | null; message: string }[] };

export function readObservedFile(text: string, file: string): ObservedRead {
  const load = parseYamlWithLines(text, file);
  if (load.errors.length > 0) return { ok: false, problems: load.errors.map((m) => ({ line: lineIn(m), message: m })) };
  const parsed = ObservedFileSchema.safeParse(load.value);
  if (!parsed.success)
    return { ok: false, problems: formatZodIssues(parsed.error, load, file).map((m) => ({ line: lineIn(m), message: m })) };
  return {
    ok: true,
    value: parsed.data,
    cardLines: parsed.data.cards.map((_, i) => lineOf(load, ["cards", i]) ?? 1),
    seatLines: (parsed.data.seats ?? []).map((_, i) => lineOf(load, ["seats", i]) ?? 1),
  };
}

function lineIn(message: string): number | null {
  const m = /:(\d+)\)?(?::|$)/.exec(message);
  return m ? Number(m[1]) : null;
}
