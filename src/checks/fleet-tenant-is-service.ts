// fleet/tenant-is-service: a tenant of kvgate.yaml with the name of a service whose footprint the gate
// sizes (a vLLM seat) is the same process told twice; it is counted once, as the seat, and the tenant's
// vram is not used. A tenant named like a service the gate does not size (a generic engine) is how
// that service's memory is told, and counts as its one entry.
import { sizesKvPerSeat } from "../model/engine.js";
import { defineCheck } from "./define.js";

export const fleetTenantIsService = defineCheck({
  id: "fleet/tenant-is-service",
  severity: "warning",
  description: "A fleet.tenants entry has the name of a vLLM seat's env file: counted once, as the seat; the tenant's vram is not used.",
  messages: {
    twice: (d: { name: string; file: string }) =>
      `tenant ${d.name} in kvgate.yaml has the name of the seat ${d.file}, ` +
      `which kvgate sizes from its env file: counted once, as the seat; delete ` +
      `the tenant from fleet.tenants (or rename it if it is another process)`,
  },
  run(ctx) {
    const seats = new Map(ctx.after.services.filter((s) => sizesKvPerSeat(ctx.pack, s)).map((s) => [s.name, s]));
    return ctx.after.tenants.flatMap((t) => {
      const s = seats.get(t.name);
      if (!s) return [];
      return [{ message: "twice" as const, service: t.name, file: null, line: null, data: { name: t.name, file: s.file } }];
    });
  },
});
