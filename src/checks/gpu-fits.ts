// gpu/fits: the seats' and tenants' footprints on a card must leave its reserve free. Cards with a
// radiance endpoint are sized by its ledger (section 6), not here.
import { defineCheck } from "./define.js";
import { cardUsage } from "../kv/card-usage.js";
import { size } from "../kv/format.js";
import { definitionOf } from "../model/types.js";

export const gpuFits = defineCheck({
  id: "gpu/fits",
  severity: "error",
  description: "The footprints on a card exceed its total minus its reserve.",
  messages: {
    over: (d: {
      host: string;
      gpu: number;
      used_bytes: number;
      total_bytes: number;
      reserve_bytes: number;
      spare_bytes: number;
      parts: string;
    }) =>
      `${d.host} gpu ${d.gpu}: footprints ${size(d.used_bytes)} > ` +
      `${size(d.total_bytes - d.reserve_bytes)} (${size(d.total_bytes)} − ${size(d.reserve_bytes)} ` +
      `reserve), over by ${size(-d.spare_bytes)}: ${d.parts}; lower a ` +
      `pin or move a seat (kvgate plan --host ${d.host} finds the best layout)`,
  },
  run(ctx) {
    return cardUsage(ctx.after, ctx.policy, ctx.pack).flatMap((l) => {
      if (l.ledgerSized || l.spare_bytes >= 0) return [];
      const seats = l.entries.flatMap((e) => (e.kind === "seat" ? [e] : []));
      const first = seats[0];
      const gpus = first?.seat.service.origins.gpus;
      const where = gpus ? { file: gpus.file, line: gpus.line } : first ? definitionOf(first.seat.service) : { file: null, line: null };
      const parts = l.entries.flatMap((e) => (e.kind === "other" ? [] : [`${e.name} ${size(e.footprint_bytes)}`])).join(", ");
      return [
        {
          message: "over" as const,
          ...where,
          service: null,
          key: `${l.host}/${l.index}`,
          data: {
            host: l.host,
            gpu: l.index,
            total_bytes: l.total_bytes,
            reserve_bytes: l.reserve_bytes,
            used_bytes: l.used_bytes,
            spare_bytes: l.spare_bytes,
            parts,
          },
        },
      ];
    });
  },
});
