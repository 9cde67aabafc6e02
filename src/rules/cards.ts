// rules/cards.yaml: the known-card table (docs/coverage.md and docs/kubernetes.md): a card's name, the other
// names it goes by, and what CUDA reports as its total. A name written anywhere (a Kubernetes
// `nvidia.com/gpu.product` label, GKE's accelerator label, kvgate.yaml `fleet.pools.<pool>.card`) is
// looked up here; a MIG slice's product label (`…-MIG-3g.40gb`) is the slice, not the card.
import * as z from "zod";
import { rulesData } from "./data.js";

export const CardsFile = z.strictObject({
  cards: z.array(
    z.strictObject({
      name: z.string().min(1).describe("As nvidia-smi --query-gpu=name prints it"),
      cuda_total_mib: z.number().int().positive().describe("nvidia-smi's memory.total: what vLLM's utilization multiplies"),
      aliases: z.array(z.string().min(1)).describe("Other names of the same card (GKE accelerator labels, short names)"),
    }),
  ),
});

export interface KnownCard {
  name: string;
  cudaTotalMib: number;
}

/** `NVIDIA-H100-80GB-HBM3`, `nvidia h100 80gb hbm3` and `NVIDIA_H100_80GB_HBM3` name one card. */
export function cardKey(name: string): string {
  return name
    .trim()
    .toLowerCase()
    .replace(/[\s_]+/g, "-");
}

let table: Map<string, KnownCard> | null = null;

/** The card a name stands for; null when the table does not know it. */
export function knownCard(name: string): KnownCard | null {
  if (!table) {
    table = new Map();
    for (const c of rulesData(CardsFile, "cards.yaml").cards) {
      const card = { name: c.name, cudaTotalMib: c.cuda_total_mib };
      for (const n of [c.name, ...c.aliases]) table.set(cardKey(n), card);
    }
  }
  return table.get(cardKey(name)) ?? null;
}

/**
 * A MIG slice named by its profile (`3g.40gb`, `1g.10gb`): the slice's memory, as the profile's GB
 * taken as 1,000³ bytes, in MiB rounded down (40 GB is 38,146 MiB). A slice holds at least its
 * profile's GB, so this is the conservative figure; a pool's cuda_total_mib gives the exact one.
 */
export function migSliceMib(profile: string): number | null {
  const m = /^(\d+)g\.(\d+)gb$/i.exec(profile.trim());
  if (!m) return null;
  return Math.floor((Number(m[2]) * 1e9) / 2 ** 20);
}
