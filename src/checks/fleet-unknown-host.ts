// fleet/unknown-host: a GPU service that names a host fleet.hosts does not list (a typo, a host not
// inventoried yet), or names none while the inventory has several, has no card to be checked on.
// Without fleet.hosts the gate has no inventory and the rule is silent.
import { holdsGpus } from "../model/engine.js";
import { defineCheck, type Report } from "./define.js";
import { definitionOf } from "../model/types.js";

export const fleetUnknownHost = defineCheck({
  id: "fleet/unknown-host",
  severity: "error",
  description:
    "A GPU service names a host that the inventory (kvgate.yaml fleet.hosts) does not " +
    "list, or names none while the inventory has several: its card cannot be checked.",
  messages: {
    unknown: (d: { service: string; host: string; hosts: string }) =>
      `${d.service}: HOST=${d.host} is not in fleet.hosts (${d.hosts}); fix HOST or add the host to kvgate.yaml`,
    missing: (d: { service: string; hosts: string }) =>
      `${d.service}: no HOST, and the inventory has several hosts (${d.hosts}); add HOST=<one of them>`,
  },
  run(ctx) {
    const hosts = Object.keys(ctx.policy.fleet.hosts);
    if (hosts.length === 0) return [];
    return ctx.after.services
      .filter((s) => holdsGpus(ctx.pack, s))
      .flatMap((s): Report[] => {
        if (s.host === null)
          return [{ message: "missing" as const, data: { service: s.name, hosts: hosts.join(", ") }, ...definitionOf(s), service: s.name }];
        // A Kubernetes pool's cards are listed under its own host (src/load/kubernetes.ts), not in fleet.hosts.
        if (hosts.includes(s.host) || ctx.after.cards.some((c) => c.host === s.host)) return [];
        return [
          {
            message: "unknown" as const,
            data: { service: s.name, host: s.host, hosts: hosts.join(", ") },
            ...(s.origins.host ? { file: s.origins.host.file, line: s.origins.host.line } : definitionOf(s)),
            service: s.name,
          },
        ];
      });
  },
});
