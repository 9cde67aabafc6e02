// kv/exception: a seat listed under kv.seats with `pinned` carries its owner's number; the env file
// must pin exactly that, so a change to it goes through the owner, not through a passing check.
import { defineCheck, type Report } from "./define.js";
import { kvData, pinFix, placeOf, setPin, vllmSeats } from "../kv/seat.js";
import { size } from "../kv/format.js";

const messages = {
  differs: (d: { name: string; pinned_bytes: number; owner_bytes: number; by: string; set: string }) =>
    `${d.name}: KV pin ${size(d.pinned_bytes)} ≠ ${d.by}'s ${size(d.owner_bytes)} ` +
    `(kv.seats.${d.name}.pinned); set ${d.set}, or ask ${d.by} to change kv.seats.${d.name}`,
  unpinned: (d: { name: string; owner_bytes: number; by: string; set: string }) =>
    `${d.name}: no KV pin, but ${d.by} pinned this seat at ${size(d.owner_bytes)} (kv.seats.${d.name}.pinned); set ${d.set}`,
};

type R = Report<typeof messages>;

export const kvException = defineCheck({
  id: "kv/exception",
  severity: "error",
  description: "A seat under kv.seats with `pinned` is not pinned to exactly that number.",
  messages,
  run(ctx) {
    return vllmSeats(ctx.after, ctx.policy, ctx.pack).flatMap((seat): R[] => {
      const owner = seat.policy?.pinned_bytes;
      if (owner === undefined || seat.pinned === owner) return [];
      const by = seat.policy?.by ?? "the seat's owner";
      const data = {
        ...kvData(seat),
        name: seat.name,
        owner_bytes: owner,
        by,
        set: setPin(seat, owner, ctx.pack),
        fix: pinFix(seat, owner, ctx.pack),
      };
      if (seat.pinned === null) return [{ message: "unpinned" as const, service: seat.name, ...placeOf(seat), data }];
      return [{ message: "differs" as const, service: seat.name, ...placeOf(seat, "kv_pin"), data }];
    });
  },
});
