// rules/cards.yaml: the cards kvgate knows by name. Each entry gives what CUDA reports as the card's
// total (torch.cuda.mem_get_info / get_device_properties, the figure vLLM multiplies its utilization
// by, as a vLLM or torch log printed it), what nvidia-smi prints as memory.total where known, and the
// class vLLM's EngineArgs.get_batch_defaults puts the card in. Two readers: the check (a card
// inventory that names its cards gets their CUDA total and batch defaults) and `kvgate init`, which
// fills an inventory from the names nvidia-smi prints (`NVIDIA A100-SXM4-80GB`), hence the aliases.
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

const CardSpec = z.strictObject({
  /** The name kvgate.yaml writes (`A100-SXM4-80GB`): nvidia-smi's name without the `NVIDIA ` prefix. */
  name: z.string().min(1),
  /** Other spellings, as nvidia-smi and torch print them (`NVIDIA A100-SXM4-80GB`) or as people write them. */
  aliases: z.array(z.string().min(1)).default([]),
  /** What CUDA reports as the total, in MiB (a log's GiB figure × 1024, rounded). */
  cuda_total_mib: z.number().int().positive(),
  /** nvidia-smi --query-gpu=memory.total, in MiB, where a published output shows it. */
  nvidia_smi_mib: z.number().int().positive().optional(),
  batch_class: BatchClass,
  /** Where the CUDA total was read (an issue's log line). */
  cite: z.string().min(1),
});

/** The lookup key of a card name: case, spaces, dashes and an `NVIDIA ` prefix do not count. */
function cardKey(name: string): string {
  return name
    .trim()
    .toLowerCase()
    .replace(/^nvidia\s+/, "")
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

type KnownCard = z.infer<typeof CardSpec>;

export interface CardTable {
  cards: KnownCard[];
  /** The card a name (or alias) stands for, or null. */
  lookup(name: string): KnownCard | null;
}

function cardTable(cards: KnownCard[]): CardTable {
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
