// rules/cards.yaml: the cards kvgate knows by name (docs/coverage.md, docs/kubernetes.md#pools,
// docs/vllm-sizing.md#unpinned-estimate). Each entry gives what CUDA reports as the card's total where a
// published vLLM or torch log printed it (the figure vLLM multiplies its utilization by), nvidia-smi's
// memory.total, and the class vLLM's EngineArgs.get_batch_defaults puts the card in. Readers: a card
// inventory that names its cards (their CUDA total and batch defaults), `kvgate init` (the names
// nvidia-smi prints), and Kubernetes pools (a `nvidia.com/gpu.product` label, GKE's accelerator label,
// kvgate.yaml `fleet.pools.<pool>.card`); a MIG slice's product label (`…-MIG-3g.40gb`) is the slice.
import * as z from "zod";
import { rulesData } from "./data.js";
import { GiB } from "../units/bytes.js";

/**
 * How vLLM's batch defaults see a card (vllm/engine/arg_utils.py get_batch_defaults and the
 * _set_default_args_v1 before it): by its device name (`h100`/`h200`, `a100`) and whether its CUDA
 * total is at least 70 GiB. `h100`: an H100/H200 of ≥ 70 GiB; `a100`: an A100 of ≥ 70 GiB; `large`:
 * any other card of ≥ 70 GiB; `small`: the rest.
 */
export const BatchClass = z.enum(["h100", "a100", "large", "small"]);
export type BatchClass = z.infer<typeof BatchClass>;

const CardSpec = z
  .strictObject({
    /** As nvidia-smi --query-gpu=name prints it (`NVIDIA A100-SXM4-80GB`). */
    name: z.string().min(1),
    /** Other names of the same card: short ones (`A100-80GB`), GKE accelerator labels. */
    aliases: z.array(z.string().min(1)).default([]),
    /** What CUDA reports as the total, in MiB (a log's GiB figure × 1024, rounded), where a log shows it. */
    cuda_total_mib: z.number().int().positive().optional(),
    /** nvidia-smi --query-gpu=memory.total, in MiB. */
    nvidia_smi_mib: z.number().int().positive().optional(),
    batch_class: BatchClass,
    /** Where the CUDA total was read (an issue's log line). */
    cite: z.string().min(1).optional(),
  })
  .superRefine((c, ctx) => {
    if (c.cuda_total_mib === undefined && c.nvidia_smi_mib === undefined)
      ctx.addIssue({ code: "custom", path: ["cuda_total_mib"], message: "give cuda_total_mib (with its cite) or nvidia_smi_mib" });
    if ((c.cuda_total_mib === undefined) !== (c.cite === undefined))
      ctx.addIssue({
        code: "custom",
        path: ["cite"],
        message: "a CUDA total comes with the log line it was read from (cite), and a cite with its figure",
      });
  });

/** `NVIDIA-H100-80GB-HBM3`, `nvidia h100 80gb hbm3` and `H100_80GB_HBM3` name one card: case, separators and an `NVIDIA` prefix do not count. */
export function cardKey(name: string): string {
  return name
    .trim()
    .toLowerCase()
    .replace(/^nvidia[\s_-]+/, "")
    .replace(/[\s_-]+/g, "");
}

export const CardsFile = z.strictObject({ cards: z.array(CardSpec) }).superRefine((file, ctx) => {
  // A name or alias under two cards would make the lookup a guess.
  const owner = new Map<string, string>();
  file.cards.forEach((c, i) => {
    [c.name, ...c.aliases].forEach((n, j) => {
      const key = cardKey(n);
      const first = owner.get(key);
      if (first !== undefined && first !== c.name)
        ctx.addIssue({
          code: "custom",
          path: ["cards", i, j === 0 ? "name" : "aliases"],
          message: `"${n}" already names ${first}`,
        });
      owner.set(key, first ?? c.name);
    });
  });
});

type CardEntry = z.infer<typeof CardSpec>;

/** A card of the table with the total kvgate sizes it by. */
export interface KnownCard extends CardEntry {
  /** The logged CUDA total, else nvidia-smi's figure (high by the driver's share: docs/vllm-sizing.md#known-differences). */
  cudaTotalMib: number;
}

export interface CardTable {
  cards: KnownCard[];
  /** The card a name (or alias) stands for, or null. */
  lookup(name: string): KnownCard | null;
}

function cardTable(entries: CardEntry[]): CardTable {
  // The schema requires one of the two figures.
  const cards = entries.map((c) => ({ ...c, cudaTotalMib: (c.cuda_total_mib ?? c.nvidia_smi_mib) as number }));
  const byKey = new Map<string, KnownCard>();
  for (const c of cards) for (const n of [c.name, ...c.aliases]) byKey.set(cardKey(n), c);
  return { cards, lookup: (name) => byKey.get(cardKey(name)) ?? null };
}

let builtin: CardTable | null = null;

/** The shipped table (rules/cards.yaml, embedded in the bundles), validated once per process. */
export function builtinCards(): CardTable {
  builtin ??= cardTable(rulesData(CardsFile, "cards.yaml").cards);
  return builtin;
}

/** The card a name stands for in the shipped table; null when the table does not know it. */
export function knownCard(name: string): KnownCard | null {
  return builtinCards().lookup(name);
}

/**
 * vLLM's own test, for a card the table does not know: `h100`/`h200` or `a100` in the device name
 * (torch.cuda.get_device_name, lowercased), and a CUDA total of at least 70 GiB.
 */
export function batchClassOf(name: string | null, cudaTotalBytes: number): BatchClass {
  if (cudaTotalBytes < 70 * GiB) return "small";
  const n = (name ?? "").toLowerCase();
  if (n.includes("h100") || n.includes("h200")) return "h100";
  if (n.includes("a100")) return "a100";
  return "large";
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
