// kv/preempted: the committed observed file (`kvgate observe --write`, from vLLM's own metrics) shows a
// seat that preempted: vLLM ran out of free KV blocks and evicted running requests to recompute them
// later. That is the engine's own evidence that the seat's KV was too small for its traffic. The
// warning stands while the seat's KV is not above what it had when observed (the file records it);
// raising the pin (or the utilization of an unpinned seat) past it answers it, until the next
// observation says whether that was enough.
import { defineCheck, type Report } from "./define.js";
import { cardUsage } from "../kv/card-usage.js";
import { placeOf, vllmSeats } from "../kv/seat.js";
import { formatInt, size } from "../kv/format.js";

type Preempted = {
  name: string;
  file: string;
  preemptions: number;
  windows: number;
  first: string | null;
  last: string;
  observed_kv_bytes: number | null;
  kv_bytes: number | null;
  key: string;
};

const when = (iso: string | null): string => (iso === null ? "since the engine started" : `${iso.slice(0, 16).replace("T", " ")} UTC`);

const messages = {
  preempted: (d: Preempted) =>
    `${d.name} preempted ${formatInt(d.preemptions)} request${d.preemptions === 1 ? "" : "s"} ` +
    `in ${d.windows} window${d.windows === 1 ? "" : "s"} ` +
    `(${when(d.first)} → ${when(d.last)}, ${d.file}): vLLM ran out of KV ` +
    `cache and recomputed them, so its KV was too small for its traffic; ` +
    (d.observed_kv_bytes === null
      ? `${d.file} does not record the KV it had then: raise ${d.key}, then observe again (\`kvgate observe --metrics … --write ${d.file}\`)`
      : `its KV is ${d.kv_bytes === null ? "unknown" : size(d.kv_bytes)} now, not above ` +
        `the ${size(d.observed_kv_bytes)} it had then: raise ${d.key} above ` +
        `${size(d.observed_kv_bytes)} (\`kvgate usage\` sizes it from the traffic), then observe again`),
  "unknown-seat": (d: { file: string; name: string }) =>
    `${d.file} records preemptions of ${d.name}, which is not a vLLM seat of the fleet: add the service, or observe again without it`,
};

export const kvPreempted = defineCheck({
  id: "kv/preempted",
  severity: "warning",
  description: "The observed file shows a vLLM seat that preempted requests, and its KV is not above what it had then.",
  messages,
  run(ctx) {
    const o = ctx.after.observed;
    if (!o?.read?.ok) return [];
    const read = o.read;
    const observed = (read.value.seats ?? []).map((s, i) => ({ s, line: read.seatLines?.[i] ?? 1 })).filter(({ s }) => s.preemptions > 0);
    if (observed.length === 0) return [];
    const seats = new Map(vllmSeats(ctx.after, ctx.policy, ctx.pack).map((s) => [s.name, s]));
    const kvNow = new Map<string, number>();
    for (const card of cardUsage(ctx.after, ctx.policy, ctx.pack))
      for (const e of card.entries) if (e.kind === "seat" && !kvNow.has(e.name)) kvNow.set(e.name, e.kv_bytes);
    const out: Report<typeof messages>[] = [];
    for (const { s, line } of observed) {
      const seat = seats.get(s.service);
      if (!seat) {
        out.push({
          message: "unknown-seat",
          data: { file: o.file, name: s.service },
          file: o.file,
          line,
          service: null,
          key: `unknown:${s.service}`,
        });
        continue;
      }
      const was = s.kv_bytes ?? null;
      const now = kvNow.get(seat.name) ?? seat.pinned ?? null;
      if (was !== null && now !== null && now > was) continue;
      const setting = seat.pinned !== null ? "kv_pin" : "gpu_memory_utilization";
      const key =
        seat.service.settings[setting]?.origin.name ?? (seat.pinned !== null ? "KV_CACHE_MEMORY_BYTES" : "GPU_MEMORY_UTILIZATION");
      const windows = s.windows ?? [];
      out.push({
        message: "preempted",
        data: {
          name: seat.name,
          file: o.file,
          preemptions: s.preemptions,
          windows: windows.length,
          first: windows[0]?.from ?? null,
          last: windows[windows.length - 1]?.until ?? read.value.until,
          observed_kv_bytes: was,
          kv_bytes: now,
          key,
        },
        ...placeOf(seat, setting),
        service: seat.name,
        // The KVs in the key: a change that lowers the pin of a seat that preempted answers for it.
        key: `${seat.name}|${now}|${was}`,
      });
    }
    return out;
  },
});
