// vLLM's batch defaults by version and card class (EngineArgs.get_batch_defaults, vllm/engine/arg_utils.py,
// and _set_default_args_v1 / SchedulerConfig before it), and the class of each card rules/cards.yaml knows.
import { describe, expect, it } from "vitest";
import { cardBatchClass, defaultBatchLimits } from "../../src/kv/batch.js";
import { vllmFacts, vllmVersionFacts } from "../../src/kv/vllm-versions.js";
import { batchClassOf, CardsFile } from "../../src/rules/cards.js";
import { GiB, MiB } from "../../src/units/bytes.js";
import { pack } from "./fixtures.js";

const entries = vllmVersionFacts(pack.engines);
const cards = pack.cards();

describe("batch defaults per version and card (get_batch_defaults)", () => {
  // version, card, max_model_len, sliding-window model → max_num_batched_tokens, max_num_seqs
  const table: [string, string, number, boolean, number, number][] = [
    // V0: max(max_model_len, 2048) (SchedulerConfig), 256 sequences
    ["0.5.1", "H100-SXM5-80GB", 8192, false, 8192, 256],
    ["0.5.1", "H100-SXM5-80GB", 1024, false, 2048, 256],
    // from 0.5.3 a context over 32K turns chunked prefill on (PR #6666): 512 tokens, 2048 from 0.6.5 (PR #10544)
    ["0.6.4", "GeForce RTX 3090", 35_000, false, 512, 256],
    ["0.6.5", "GeForce RTX 3090", 35_000, false, 2048, 256],
    // … but not for sliding-window models
    ["0.6.5", "GeForce RTX 3090", 35_000, true, 35_000, 256],
    // V1 0.8.0: the large budget by device name (h100/h200, PR #12369), 1024 sequences everywhere
    ["0.8.0", "H100-SXM5-80GB", 32_768, false, 8192, 1024],
    ["0.8.0", "A100-SXM4-80GB", 32_768, false, 2048, 1024],
    // 0.8.4: 256 sequences off H100/H200 (PR #16158)
    ["0.8.4", "A100-SXM4-80GB", 32_768, false, 2048, 256],
    // 0.8.5: every card of ≥ 70 GiB (PR #17073), A100 included
    ["0.8.5", "A100-SXM4-80GB", 32_768, false, 8192, 1024],
    ["0.8.5", "L40S", 32_768, false, 2048, 256],
    // 0.9.0 on: not A100 (PR #17885)
    ["0.9.0", "A100-SXM4-80GB", 32_768, false, 2048, 256],
    ["0.21.0", "H200", 32_768, false, 8192, 1024],
    ["0.21.0", "A100-SXM4-80GB", 32_768, false, 2048, 256],
    ["0.21.0", "GeForce RTX 3090", 32_768, false, 2048, 256],
  ];
  it.each(table)("vLLM %s on %s, max_model_len %s (sliding %s)", (version, card, maxModelLen, sliding, tokens, seqs) => {
    const known = cards.lookup(card);
    expect(known, card).not.toBeNull();
    const cardClass = cardBatchClass(cards, card, (known?.cudaTotalMib ?? 0) * MiB);
    const d = vllmFacts(version, entries).batchDefaults;
    expect(defaultBatchLimits({ defaults: d, cardClass, maxModelLen, chunkedEligible: !sliding })).toEqual({
      maxNumBatchedTokens: tokens,
      maxNumSeqs: seqs,
    });
  });
});

describe("card classes (rules/cards.yaml)", () => {
  it("gives every known card the class vLLM's own name and size test gives it", () => {
    for (const c of cards.cards) expect(c.batch_class, c.name).toBe(batchClassOf(c.name, c.cudaTotalMib * MiB));
  });

  it("finds a card by the names nvidia-smi and people write", () => {
    expect(cards.lookup("A100-SXM4-80GB")?.name).toBe("NVIDIA A100-SXM4-80GB");
    expect(cards.lookup("a100 sxm4 80gb")?.name).toBe("NVIDIA A100-SXM4-80GB");
    expect(cards.lookup("GeForce RTX 3090")?.name).toBe("NVIDIA GeForce RTX 3090");
    expect(cards.lookup("H100-SXM5-80GB")?.name).toBe("NVIDIA H100 80GB HBM3");
    // The Kubernetes spellings: GPU Feature Discovery's product label and GKE's accelerator label.
    expect(cards.lookup("NVIDIA-H100-80GB-HBM3")?.name).toBe("NVIDIA H100 80GB HBM3");
    expect(cards.lookup("nvidia-tesla-t4")?.name).toBe("Tesla T4");
    expect(cards.lookup("NVIDIA-L4")?.name).toBe("NVIDIA L4");
    expect(cards.lookup("NVIDIA B300")).toBeNull();
  });

  it("sizes a card by its logged CUDA total, else by nvidia-smi's figure", () => {
    // A100 80GB: 79.15 GiB in vLLM's log (ovg-project/kvcached#29), 81,920 MiB in nvidia-smi.
    expect(cards.lookup("A100-80GB")).toMatchObject({ cudaTotalMib: 81050, nvidia_smi_mib: 81920 });
    expect(cards.lookup("NVIDIA L4")).toMatchObject({ cudaTotalMib: 23034, nvidia_smi_mib: 23034 });
  });

  it("classes an unknown card by vLLM's test: the name, then ≥ 70 GiB", () => {
    expect(batchClassOf("NVIDIA H200 NVL", 140 * GiB)).toBe("h100");
    expect(batchClassOf("NVIDIA A100 80GB PCIe", 79 * GiB)).toBe("a100");
    expect(batchClassOf("NVIDIA A100-PCIE-40GB", 39 * GiB)).toBe("small");
    expect(batchClassOf("NVIDIA B200", 178 * GiB)).toBe("large");
    expect(batchClassOf(null, 24 * GiB)).toBe("small");
  });

  it("refuses a malformed table: a card without a figure, a CUDA total without its cite, a name under two cards", () => {
    const issues = (cards: unknown[]) => CardsFile.safeParse({ cards }).error?.issues.map((i) => `${i.path.join(".")}: ${i.message}`) ?? [];
    expect(issues([{ name: "X1", batch_class: "small" }])).toEqual([
      "cards.0.cuda_total_mib: give cuda_total_mib (with its cite) or nvidia_smi_mib",
    ]);
    expect(issues([{ name: "X1", cuda_total_mib: 1000, batch_class: "small" }])).toEqual([
      "cards.0.cite: a CUDA total comes with the log line it was read from (cite), and a cite with its figure",
    ]);
    expect(
      issues([
        { name: "NVIDIA X1", nvidia_smi_mib: 1000, batch_class: "small" },
        { name: "X2", aliases: ["x-1"], nvidia_smi_mib: 1000, batch_class: "small" },
      ]),
    ).toEqual(['cards.1.aliases: "x-1" already names NVIDIA X1']);
  });
});
