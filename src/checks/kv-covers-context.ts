// kv/covers-context: the KV a seat will have must hold factor × one max-length request, rounded up
// (vLLM refuses to boot below one request; the factor is the margin for concurrency). The request is
// what vLLM reserves for it layer by layer (src/kv/attention.ts: sliding-window and chunked layers
// keep their window, state layers their state). A pinned seat is compared by its pin; an unpinned seat
// by what vLLM's profiler will leave it (utilization × total − weights − overhead), which the message
// calls an estimate. An owner-pinned seat (kv.seats.<name>.pinned) is reported exempt, naming the
// owner: kv/exception holds it instead.
import { defineCheck, type Report } from "./define.js";
import { kvData, longestFitting, placeOf, requiredFormula, setPin, vllmSeats } from "../kv/seat.js";
import { formatInt, size } from "../kv/format.js";

const messages = {
  short: (d: { name: string; pinned_bytes: number; required_bytes: number; formula: string; set: string }) =>
    `${d.name}: KV pin ${size(d.pinned_bytes)} < required ${size(d.required_bytes)} = ${d.formula}; set ${d.set}`,
  estimated: (d: { name: string; estimated_bytes: number; estimate: string; required_bytes: number; formula: string; len_key: string; fits: number; set: string }) =>
    `${d.name}: no KV pin, so vLLM's profiler sizes the cache: an estimated ${size(d.estimated_bytes)} (${d.estimate}) < required ${size(d.required_bytes)} = ${d.formula}; set ${d.len_key}=${d.fits}, the longest the estimate holds, or pin ${d.set} where the card has room`,
};

type R = Report<typeof messages>;

export const kvCoversContext = defineCheck({
  id: "kv/covers-context",
  severity: "error",
  description: "A vLLM seat's KV (its pin, or the profiler's estimate when unpinned) is below factor × the KV one max-length request needs, rounded up to kv.round.",
  messages,
  run(ctx) {
    const round = ctx.policy.kv.round_bytes;
    return vllmSeats(ctx.after, ctx.policy, ctx.pack).flatMap((seat): R[] => {
      if (seat.required === null || seat.maxModelLenAuto) return [];
      const owner = seat.policy?.pinned_bytes !== undefined ? seat.policy : undefined;
      const exempt = owner ? { status: "exempt" as const, reason: `owner-pinned by ${owner.by ?? "the seat's owner"} (kv.seats.${seat.name}.pinned)` } : {};
      const formula = requiredFormula(seat, round);
      if (seat.pinned !== null) {
        if (seat.pinned >= seat.required) return [];
        return [{
          message: "short" as const,
          service: seat.name,
          ...placeOf(seat, "kv_pin"),
          data: { ...kvData(seat), name: seat.name, formula, set: setPin(seat, seat.required) },
          ...exempt,
        }];
      }
      const e = seat.estimate;
      if (!e || e.bytes >= seat.required) return [];
      const fits = longestFitting(seat, Math.max(0, e.bytes), round) ?? 0;
      const lenOrigin = seat.service.settings.max_model_len?.origin;
      const lenKey = lenOrigin?.source === "flag" ? "--max-model-len" : "MAX_MODEL_LEN";
      const estimate = `${e.utilization} × ${size(e.totalBytes)} − weights ${size(e.weightsPerGpu)} − overhead ${size(e.overhead.bytes)}${e.graphsBytes > 0 ? ` − CUDA graphs ${size(e.graphsBytes)}` : ""}`;
      return [{
        message: "estimated" as const,
        service: seat.name,
        ...placeOf(seat, "max_model_len"),
        data: {
          ...kvData(seat),
          name: seat.name,
          formula,
          estimate,
          overhead_bytes: e.overhead.bytes,
          weights_bytes: e.weightsPerGpu,
          total_bytes: e.totalBytes,
          utilization: e.utilization,
          len_key: lenKey,
          fits,
          fits_text: formatInt(fits),
          set: setPin(seat, seat.required),
        },
        ...exempt,
      }];
    });
  },
});
