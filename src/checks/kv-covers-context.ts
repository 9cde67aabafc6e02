// kv/covers-context: the KV a seat will have must hold factor × one max-length request, rounded up
// (vLLM refuses to boot below one request; the factor is the margin for concurrency). The request is
// what vLLM reserves for it layer by layer (src/kv/attention.ts: sliding-window and chunked layers
// keep their window, state layers their state). A pinned seat is compared by its pin; an unpinned seat
// by what vLLM's profiler will leave it (utilization × total − weights − overhead), which the message
// calls an estimate. An owner-pinned seat (kv.seats.<name>.pinned) is reported exempt, naming the
// owner: kv/exception holds it instead.
// The fix raises the pin, unless that would overfill the card (gpu/fits) or starve a neighbour's boot
// (kv/boot-check): then it lowers the context to what the pin holds. An unpinned seat is told the
// longest context its estimate holds.
import { defineCheck, type Report } from "./define.js";
import { acrossVersions, kvData, longestFitting, pinFix, placeOf, requiredFormula, setPin, vllmSeats, type VllmSeat } from "../kv/seat.js";
import { cardUsage, type CardUsage } from "../kv/card-usage.js";
import { compact, formatInt, size } from "../kv/format.js";
import { contextThatFits, pinRaiseFits, utilizationFor, utilizationRaiseFits } from "../fix/kv-room.js";
import { settingFix } from "../model/setting-fix.js";
import { outputCapOf } from "../kv/yarn.js";
import { showFix, type ValueFix } from "../model/value-fix.js";
import type { RulesPack } from "../rules/pack.js";

type Data = {
  name: string;
  pinned_bytes: number;
  required_bytes: number;
  formula: string;
  fix?: ValueFix;
  fix_kind: "pin" | "context" | "none";
  versions_note?: string;
};
type Estimated = {
  name: string;
  estimated_bytes: number;
  estimate: string;
  required_bytes: number;
  formula: string;
  fix?: ValueFix;
  fits: number;
  /** How to pin it, in the file's spelling; absent on a version without the pin (no advice names one). */
  set?: string;
  /** The version has no byte pin (before 0.10.2): the utilization that leaves the KV, when the card can hold it. */
  no_pin_version?: string;
  /** The pin the seat needs fits beside its neighbours (then it is the fix). */
  pin_fits?: boolean;
  utilization_fix?: ValueFix;
  context_fix?: ValueFix;
  versions_note?: string;
};

const advice = (d: Data): string => {
  if (d.fix_kind === "pin" && d.fix) return `set ${showFix(d.fix)} (${compact(Number(d.fix.value))})`;
  if (d.fix_kind === "context" && d.fix)
    return (
      `a pin of ${size(d.required_bytes)} does not fit beside its neighbours (the card's ` +
      `spare, or a neighbour's boot), so lower the context: set ${showFix(d.fix)} ` +
      `(${formatInt(Number(d.fix.value))} tokens fit the pin), or free the card first (kvgate plan)`
    );
  return (
    `a pin of ${size(d.required_bytes)} does not fit beside its neighbours (the card's spare, ` +
    `or a neighbour's boot): free room on the card first (kvgate plan), or lower the context`
  );
};

const messages = {
  short: (d: Data) =>
    `${d.name}: KV pin ${size(d.pinned_bytes)} < required ${size(d.required_bytes)} = ${d.formula}; ${advice(d)}${d.versions_note ?? ""}`,
  estimated: (d: Estimated) =>
    `${d.name}: no KV pin, so vLLM's profiler sizes the cache: an estimated ${size(d.estimated_bytes)} (${d.estimate}) < required ${size(d.required_bytes)} = ${d.formula}; ${
      d.pin_fits
        ? `pin it: set ${d.set ?? ""}${d.context_fix ? `, or set ${showFix(d.context_fix)}, the longest the estimate holds` : ""}`
        : `${d.context_fix ? `set ${showFix(d.context_fix)}, the longest the estimate holds, or ` : ""}pin ${d.set ?? ""} where the card has room`
    }${d.versions_note ?? ""}`,
  "estimated-no-pin": (d: Estimated) =>
    `${d.name}: no KV pin (vLLM ${d.no_pin_version} has none: --kv-cache-memory-bytes came in 0.10.2), so vLLM's profiler sizes the cache: an estimated ${size(d.estimated_bytes)} (${d.estimate}) < required ${size(d.required_bytes)} = ${d.formula}; ${
      d.utilization_fix
        ? `set ${showFix(d.utilization_fix)}, which leaves the KV it needs${d.context_fix ? `, or set ${showFix(d.context_fix)}, the longest the estimate holds` : ""}`
        : d.context_fix
          ? `the card has no room for more utilization: set ${showFix(d.context_fix)}, the longest the estimate holds, or free the card (kvgate plan)`
          : "free room on the card (kvgate plan), or lower the context"
    }${d.versions_note ?? ""}`,
};

/** The highest utilization advised: vLLM must still find it free beside its own CUDA context at boot. */
const MAX_UTILIZATION = 0.95;

type R = Report<typeof messages>;

/** A context fix, unless gen/output-cap would refuse the lower context (the cap is above it). */
function contextFix(pack: RulesPack, seat: VllmSeat, len: number | null): ValueFix | null {
  const cap = outputCapOf(seat.service)?.cap;
  return len === null || len <= 0 || (cap !== undefined && cap > len) ? null : settingFix(pack, seat.service, "max_model_len", len);
}

function pinnedShort(
  seat: VllmSeat,
  pinned: number,
  required: number,
  usages: CardUsage[],
  pack: RulesPack,
  round: number,
): Omit<R, "message"> & { data: Data } {
  let fix: ValueFix | null;
  let kind: Data["fix_kind"];
  if (pinRaiseFits(usages, seat, required)) {
    fix = pinFix(seat, required, pack);
    kind = "pin";
  } else {
    fix = contextFix(pack, seat, contextThatFits(seat, round));
    kind = fix ? "context" : "none";
  }
  return {
    service: seat.name,
    ...placeOf(seat, "kv_pin"),
    data: {
      ...kvData(seat),
      name: seat.name,
      pinned_bytes: pinned,
      required_bytes: required,
      formula: requiredFormula(seat, round),
      ...(fix ? { fix } : {}),
      fix_kind: kind,
    },
  };
}

export const kvCoversContext = defineCheck({
  id: "kv/covers-context",
  severity: "error",
  description:
    "A vLLM seat's KV (its pin, or vLLM's estimate without one) is below factor × one max-length request, rounded up to kv.round.",
  messages,
  run(ctx) {
    const round = ctx.policy.kv.round_bytes;
    const usages = cardUsage(ctx.after, ctx.policy, ctx.pack);
    return vllmSeats(ctx.after, ctx.policy, ctx.pack).flatMap((primary): R[] =>
      acrossVersions(primary, (seat): R | null => {
        if (seat.required === null || seat.maxModelLenAuto) return null;
        const owner = seat.policy?.pinned_bytes !== undefined ? seat.policy : undefined;
        const exempt = owner
          ? { status: "exempt" as const, reason: `owner-pinned by ${owner.by ?? "the seat's owner"} (kv.seats.${seat.name}.pinned)` }
          : {};
        if (seat.pinned !== null) {
          if (seat.pinned >= seat.required) return null;
          return { message: "short" as const, ...pinnedShort(seat, seat.pinned, seat.required, usages, ctx.pack, round), ...exempt };
        }
        const e = seat.estimate;
        if (!e || e.bytes >= seat.required) return null;
        const fits = longestFitting(seat, Math.max(0, e.bytes), round) ?? 0;
        const context = contextFix(ctx.pack, seat, fits);
        const estimate =
          `${e.utilization} × ${size(e.totalBytes)} − weights ` +
          `${size(e.weightsPerGpu)} − overhead ` +
          `${size(e.overhead.bytes)}${e.graphsBytes > 0 ? ` − CUDA graphs ${size(e.graphsBytes)}` : ""}`;
        // Before 0.10.2 there is no pin to advise: the utilization that leaves the KV, when the card holds it.
        const noPin = !seat.vf.kvCacheMemoryBytesFlag;
        const u = noPin ? utilizationFor(seat, seat.required) : null;
        const utilization =
          u !== null && u <= MAX_UTILIZATION && utilizationRaiseFits(usages, seat, u)
            ? settingFix(ctx.pack, seat.service, "gpu_memory_utilization", u)
            : null;
        // A version with the pin: the pin, where the card holds it (it is what an unpinned seat lacks),
        // else the longest context the estimate holds.
        const pin = !noPin && pinRaiseFits(usages, seat, seat.required) ? pinFix(seat, seat.required, ctx.pack) : null;
        const fix = noPin ? (utilization ?? context) : (pin ?? context);
        return {
          message: noPin ? ("estimated-no-pin" as const) : ("estimated" as const),
          service: seat.name,
          ...placeOf(seat, "max_model_len"),
          data: {
            ...kvData(seat),
            name: seat.name,
            formula: requiredFormula(seat, round),
            estimate,
            estimated_bytes: e.bytes,
            required_bytes: seat.required,
            overhead_bytes: e.overhead.bytes,
            weights_bytes: e.weightsPerGpu,
            total_bytes: e.totalBytes,
            utilization: e.utilization,
            fits,
            fits_text: formatInt(fits),
            ...(noPin ? {} : { set: setPin(seat, seat.required, ctx.pack) }),
            ...(fix ? { fix } : {}),
            ...(context ? { context_fix: context } : {}),
            ...(noPin
              ? { no_pin_version: seat.vf.version ?? "(unknown)", ...(utilization ? { utilization_fix: utilization } : {}) }
              : { pin_fits: pin !== null }),
          },
          ...exempt,
        };
      }),
    );
  },
});
