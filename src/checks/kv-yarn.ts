// kv/yarn: static YaRN scales every request, short ones too, which Qwen's model cards warn degrades
// short prompts. A warning; an error where the seat's policy says `yarn: forbid`.
import { defineCheck, type Report } from "./define.js";
import { kvData, vllmSeats } from "../kv/seat.js";
import { yarnOf } from "../kv/yarn.js";

const messages = {
  on: (d: { name: string; via: string; yarn_factor: number }) =>
    `${d.name}: static YaRN is on (${d.via}, factor ${d.yarn_factor}): ` +
    `it applies to every prompt, and Qwen's cards warn it degrades ` +
    `short ones; turn it on only for seats that need the long context`,
  forbidden: (d: { name: string; via: string; yarn_factor: number; by: string }) =>
    `${d.name}: static YaRN is on (${d.via}, factor ${d.yarn_factor}) but kv.seats.${d.name}.yarn is forbid (${d.by}); remove the YaRN override`,
};

type R = Report<typeof messages>;

export const kvYarn = defineCheck({
  id: "kv/yarn",
  severity: "warning",
  description: "Static YaRN is on (an error where kv.seats.<name>.yarn is forbid).",
  messages,
  run(ctx) {
    return vllmSeats(ctx.after, ctx.policy, ctx.pack).flatMap((seat): R[] => {
      const yarn = yarnOf(seat.service);
      if (!yarn) return [];
      const where = { service: seat.name, file: yarn.origin.file, line: yarn.origin.line };
      const data = { ...kvData(seat), name: seat.name, via: yarn.via, yarn_factor: yarn.factor, by: seat.policy?.by ?? "policy" };
      if (seat.policy?.yarn === "forbid") return [{ message: "forbidden" as const, severity: "error" as const, ...where, data }];
      return [{ message: "on" as const, ...where, data }];
    });
  },
});
