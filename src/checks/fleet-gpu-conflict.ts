// fleet/gpu-conflict: GPU is what kvgate reads and the serve script maps onto CUDA_VISIBLE_DEVICES; a
// file that sets both to different cards runs on one and is checked on the other, so the gate would
// size the wrong card without a word.
import { defineCheck } from "./define.js";

export const fleetGpuConflict = defineCheck({
  id: "fleet/gpu-conflict",
  severity: "error",
  description:
    "A service's GPU and CUDA_VISIBLE_DEVICES name different cards: the card it runs on and the card the gate checks may differ.",
  messages: {
    conflict: (d: { service: string; gpu: string; cuda: string; cudaLine: number }) =>
      `${d.service}: GPU=${d.gpu} but CUDA_VISIBLE_DEVICES=${d.cuda} (line ${d.cudaLine}) names other cards; set CUDA_VISIBLE_DEVICES=${d.gpu}, or delete one of the two`,
  },
  run(ctx) {
    return ctx.after.services.flatMap((s) => {
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
    });
  },
});
