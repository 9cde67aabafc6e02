// fleet/unknown-card: a service that names a card its host does not list in kvgate.yaml
// (GPU=3 on a host with cards 0 and 1), or names no card on a host with several, cannot be placed on a
// card, so gpu/fits and the boot checks would pass it unseen.
import { holdsGpus } from "../model/engine.js";
import { defineCheck, type Report } from "./define.js";
import { definitionOf } from "../model/types.js";

export const fleetUnknownCard = defineCheck({
  id: "fleet/unknown-card",
  severity: "error",
  description: "A service names a card index its host does not have in the inventory (or names no card on a host with several).",
  messages: {
    unknown: (d: { service: string; gpu: number; host: string; cards: string; gpu_key?: string }) =>
      `${d.service}: GPU ${d.gpu} is not a card of ${d.host} (cards: ${d.cards}); fix ${d.gpu_key ?? "GPU"} or add the card to fleet.hosts.${d.host}.gpus`,
    missing: (d: { service: string; host: string; cards: string }) =>
      `${d.service}: no GPU, and ${d.host} has several cards (${d.cards}); add GPU=<index>`,
    // A seat only a compose file defines has no env file to add GPU to: its compose service places it.
    missing_compose: (d: { service: string; host: string; cards: string }) =>
      `${d.service}: no GPU, and ${d.host} has several cards (${d.cards}); ` +
      `give its compose service a card: deploy.resources.reservations.devices: ` +
      `[{ capabilities: [gpu], device_ids: ["<index>"] }]`,
  },
  run(ctx) {
    return ctx.after.services
      .filter((s) => holdsGpus(ctx.pack, s) && s.host !== null && ctx.policy.fleet.hosts[s.host])
      .flatMap((s): Report[] => {
        const host = s.host as string;
        const cards = ctx.after.cards.filter((c) => c.host === host).map((c) => c.index);
        const list = cards.join(", ");
        if (s.gpus.length === 0)
          return cards.length > 1
            ? [
                {
                  message: s.definedAt?.by === "compose" ? ("missing_compose" as const) : ("missing" as const),
                  data: { service: s.name, host, cards: list },
                  ...definitionOf(s),
                  service: s.name,
                },
              ]
            : [];
        return s.gpus
          .filter((g) => !cards.includes(g))
          .map((g) => ({
            message: "unknown" as const,
            data: { service: s.name, gpu: g, host, cards: list, ...(s.origins.gpus ? { gpu_key: s.origins.gpus.name } : {}) },
            ...(s.origins.gpus ? { file: s.origins.gpus.file, line: s.origins.gpus.line } : definitionOf(s)),
            service: s.name,
            key: String(g),
          }));
      });
  },
});
