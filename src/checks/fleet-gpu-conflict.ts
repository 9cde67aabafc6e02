// fleet/gpu-conflict: GPU is what kvgate reads and the serve script maps onto CUDA_VISIBLE_DEVICES; a
// file that sets both to different cards runs on one and is checked on the other, so the gate would
// size the wrong card without a word. The same for a GPU user declared under fleet.tenants whose own
// env file names another card: the tenant's card is the one counted, the env file's the one it uses.
import { defineCheck, type Report } from "./define.js";

export const fleetGpuConflict = defineCheck({
  id: "fleet/gpu-conflict",
  severity: "error",
  description:
    "A service's GPU and CUDA_VISIBLE_DEVICES name different cards: the card it runs on and the card the gate checks may differ.",
  messages: {
    conflict: (d: { service: string; gpu: string; cuda: string; cudaLine: number }) =>
      `${d.service}: GPU=${d.gpu} but CUDA_VISIBLE_DEVICES=${d.cuda} (line ${d.cudaLine}) ` +
      `names other cards; set CUDA_VISIBLE_DEVICES=${d.gpu}, or delete one of the two`,
    tenant: (d: { service: string; key: string; cards: string; host: string; gpu: number }) =>
      `${d.service}: ${d.key}=${d.cards} here, but kvgate.yaml's fleet.tenants ` +
      `puts ${d.service} on ${d.host} gpu ${d.gpu}: the gate counts its memory on the ` +
      `other card; set the tenant's gpu: to the card it uses, or change ${d.key}`,
  },
  run(ctx) {
    const tenants = ctx.after.tenants.flatMap((t): Report[] => {
      const s = ctx.after.services.find((x) => x.name === t.name && x.engine === null);
      const at = s?.origins.gpus;
      if (!s || !at || s.gpus.length === 0 || s.gpus.includes(t.gpu)) return [];
      return [
        {
          message: "tenant" as const,
          service: s.name,
          file: at.file,
          line: at.line,
          data: { service: s.name, key: at.name, cards: s.gpus.join(","), host: t.host, gpu: t.gpu },
        },
      ];
    });
    return [
      ...tenants,
      ...ctx.after.services.flatMap((s) => {
        const c = s.gpuConflict;
        if (!c) return [];
        return [
          {
            message: "conflict" as const,
            service: s.name,
            file: c.kept.file,
            line: c.kept.line,
            data: { service: s.name, gpu: c.keptRaw.trim(), cuda: c.otherRaw.trim(), cudaLine: c.other.line },
          },
        ];
      }),
    ];
  },
});
