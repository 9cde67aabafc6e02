// vLLM's batch defaults by version and card class (EngineArgs.get_batch_defaults, vllm/engine/arg_utils.py,
// and _set_default_args_v1 / SchedulerConfig before it), and the class of each card rules/cards.yaml knows.
import { describe, expect, it } from "vitest";
import { cardBatchClass, defaultBatchLimits } from "../../src/kv/batch.js";
import { vllmFacts, vllmVersionFacts } from "../../src/kv/vllm-versions.js";
import { batchClassOf } from "../../src/rules/cards.js";
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
    const cardClass = cardBatchClass(cards, card, (known?.cuda_total_mib ?? 0) * MiB);
    const d = vllmFacts(version, entries).batchDefaults;
    expect(defaultBatchLimits({ defaults: d, cardClass, maxModelLen, chunkedEligible: !sliding })).toEqual({
      maxNumBatchedTokens: tokens,
      maxNumSeqs: seqs,
    });
  });
});

describe("card classes (rules/cards.yaml)", () => {
  it("gives every known card the class vLLM's own name and size test gives it", () => {
    for (const c of cards.cards) expect(c.batch_class, c.name).toBe(batchClassOf(`NVIDIA ${c.name}`, c.cuda_total_mib * MiB));
  });

  it("finds a card by the names nvidia-smi and people write", () => {
    expect(cards.lookup("NVIDIA A100-SXM4-80GB")?.name).toBe("A100-SXM4-80GB");
    expect(cards.lookup("a100-sxm4-80gb")?.name).toBe("A100-SXM4-80GB");
    expect(cards.lookup("NVIDIA GeForce RTX 3090")?.name).toBe("GeForce RTX 3090");
    expect(cards.lookup("NVIDIA H100 80GB HBM3")?.name).toBe("H100-SXM5-80GB");
    expect(cards.lookup("NVIDIA B300")).toBeNull();
  });

  it("classes an unknown card by vLLM's test: the name, then ≥ 70 GiB", () => {
    expect(batchClassOf("NVIDIA H200 NVL", 140 * GiB)).toBe("h100");
    expect(batchClassOf("NVIDIA A100 80GB PCIe", 79 * GiB)).toBe("a100");
    expect(batchClassOf("NVIDIA A100-PCIE-40GB", 39 * GiB)).toBe("small");
    expect(batchClassOf("NVIDIA B200", 178 * GiB)).toBe("large");
    expect(batchClassOf(null, 24 * GiB)).toBe("small");
  });
});
