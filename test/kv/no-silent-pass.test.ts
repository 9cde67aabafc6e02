// Issue 24: no fleet passes with an unsized seat. A fleet sized in full, written the operator's way
// (image in VLLM_IMAGE, every flag in VLLM_EXTRA_ARGS, a local model described by its committed
// config.json), as a compose-only host and as a systemd-unit host, passes; each case removes exactly
// one fact it was sized from — the card inventory, a card, the model, its config file, a setting, the
// image, the card a seat is on — and the whole engine (every check, the real loader) must refuse it:
// fleet/unsized, or the rule that names that exact gap. Never a pass.
import { describe, expect, test } from "vitest";
import { contextOf, runCase, type Actual } from "../helpers/rule-tester.js";
import { explainVllm } from "../../src/explain/vllm.js";

const INVENTORY = "fleet:\n  hosts:\n    gpu-box: { gpus: [ { index: 0, total: 24564MiB }, { index: 1, total: 24564MiB } ] }\n";
const CONFIG = `version: 1\nservices: "deploy/*.env"\n${INVENTORY}`;
const args = (a: string) => `VLLM_EXTRA_ARGS="${a}"\n`;
const cap = (n: number) => `--override-generation-config '{\\"max_new_tokens\\":${n}}'`;
// A Llama-shaped 7B the repository describes itself: 8 KV heads × 128 × 32 layers, 12.55 GiB of weights.
const LOCAL_CONFIG = JSON.stringify({
  architectures: ["LlamaForCausalLM"],
  model_type: "llama",
  hidden_size: 4096,
  intermediate_size: 11008,
  num_hidden_layers: 32,
  num_attention_heads: 32,
  num_key_value_heads: 8,
  max_position_embeddings: 16384,
  vocab_size: 32000,
  torch_dtype: "bfloat16",
});

type Files = Record<string, string>;

/** Card 0 shared by an fp8 seat and a small one, each pinned and given its share; card 1 a local model. */
const ENV_FLEET: Files = {
  "kvgate.yaml": CONFIG,
  "deploy/chat.env":
    "VLLM_IMAGE=vllm/vllm-openai:v0.10.2\nCUDA_VISIBLE_DEVICES=0\n" +
    args(
      `--model Qwen/Qwen3-8B --quantization fp8 --max-model-len 16384 --kv-cache-memory-bytes 3221225472 --gpu-memory-utilization 0.6 ${cap(4096)}`,
    ),
  "deploy/embed.env":
    "VLLM_IMAGE=vllm/vllm-openai:v0.10.2\nCUDA_VISIBLE_DEVICES=0\n" +
    args(`--model Qwen/Qwen3-1.7B --max-model-len 8192 --kv-cache-memory-bytes 1610612736 --gpu-memory-utilization 0.3 ${cap(1024)}`),
  "deploy/local.env":
    "VLLM_IMAGE=vllm/vllm-openai:v0.10.2\nCUDA_VISIBLE_DEVICES=1\nMODEL_CONFIG=hf/acme-7b/config.json\n" +
    args(`--model /models/acme-7b --max-model-len 16384 --kv-cache-memory-bytes 2684354560 ${cap(2048)}`),
  "hf/acme-7b/config.json": LOCAL_CONFIG,
  "hf/acme-7b/model.safetensors.index.json": '{"metadata":{"total_size":13476839424},"weight_map":{}}\n',
};

/** A seat in env keys, whose image is the only thing that names its engine. */
const KEYS_FLEET: Files = {
  "kvgate.yaml": CONFIG,
  "deploy/chat.env":
    "VLLM_IMAGE=vllm/vllm-openai:v0.10.2\nCUDA_VISIBLE_DEVICES=1\nMODEL=Qwen/Qwen3-4B\nMAX_MODEL_LEN=16384\nKV_CACHE_MEMORY_BYTES=3221225472\n",
};

const COMPOSE_FLEET: Files = {
  "kvgate.yaml": `version: 1\n${INVENTORY}`,
  "compose.yaml": [
    "services:",
    "  chat:",
    "    image: vllm/vllm-openai:v0.10.2",
    `    command: ["--model", "Qwen/Qwen3-4B", "--max-model-len", "16384", "--kv-cache-memory-bytes", "3221225472", "--override-generation-config", '{"max_new_tokens":4096}']`,
    "    deploy:",
    "      resources:",
    "        reservations:",
    "          devices:",
    '            - { driver: nvidia, device_ids: ["0"], capabilities: [gpu] }',
    "",
  ].join("\n"),
};

const UNIT_FLEET: Files = {
  "kvgate.yaml": `version: 1\n${INVENTORY}`,
  "units/vllm-chat.service": [
    "[Service]",
    "ExecStart=/usr/bin/docker run --rm --gpus device=1 vllm/vllm-openai:v0.10.2 \\",
    `  --model Qwen/Qwen3-4B --max-model-len 16384 --kv-cache-memory-bytes 3221225472 --override-generation-config '{"max_new_tokens":4096}'`,
    "",
  ].join("\n"),
};

interface Removal {
  fact: string;
  fleet: Files;
  /** The one file the fact lives in, and the text without it (null: the file removed). */
  edit: [path: string, without: (text: string) => string | null];
  /** The rules allowed to refuse it (fleet/unsized or the one that names that gap); one must. */
  refusedBy: string[];
}

const drop = (re: RegExp) => (t: string) => {
  expect(t).toMatch(re);
  return t.replace(re, "");
};

const REMOVALS: Removal[] = [
  { fact: "the card inventory", fleet: ENV_FLEET, edit: ["kvgate.yaml", drop(/^fleet:[\s\S]*$/m)], refusedBy: ["fleet/unsized"] },
  {
    fact: "card 0 of the inventory",
    fleet: ENV_FLEET,
    edit: ["kvgate.yaml", drop(/\{ index: 0, total: 24564MiB \}, /)],
    refusedBy: ["fleet/unknown-card"],
  },
  {
    fact: "chat's model",
    fleet: ENV_FLEET,
    edit: ["deploy/chat.env", drop(/--model Qwen\/Qwen3-8B /)],
    refusedBy: ["engine/unknown-model", "fleet/unsized"],
  },
  {
    fact: "the local model's config.json",
    fleet: ENV_FLEET,
    edit: ["hf/acme-7b/config.json", () => null],
    refusedBy: ["engine/unknown-model", "fleet/unsized"],
  },
  {
    fact: "MODEL_CONFIG, which names the local model's config.json",
    fleet: ENV_FLEET,
    edit: ["deploy/local.env", drop(/^MODEL_CONFIG=.*\n/m)],
    refusedBy: ["engine/unknown-model", "fleet/unsized"],
  },
  {
    fact: "chat's --max-model-len (vLLM then takes the model's 40,960, past its pin)",
    fleet: ENV_FLEET,
    edit: ["deploy/chat.env", drop(/--max-model-len 16384 /)],
    refusedBy: ["kv/covers-context"],
  },
  {
    fact: "embed's KV pin on the shared card",
    fleet: ENV_FLEET,
    edit: ["deploy/embed.env", drop(/--kv-cache-memory-bytes 1610612736 /)],
    refusedBy: ["kv/unpinned-shared-card", "kv/covers-context"],
  },
  {
    fact: "chat's --gpu-memory-utilization (vLLM's 0.9 default cannot boot beside embed)",
    fleet: ENV_FLEET,
    edit: ["deploy/chat.env", drop(/--gpu-memory-utilization 0\.6 /)],
    refusedBy: ["kv/boot-check"],
  },
  {
    fact: "chat's --quantization fp8 (bf16 weights do not fit beside embed)",
    fleet: ENV_FLEET,
    edit: ["deploy/chat.env", drop(/--quantization fp8 /)],
    refusedBy: ["gpu/fits", "kv/boot-check"],
  },
  {
    fact: "the image, where nothing else names the engine",
    fleet: KEYS_FLEET,
    edit: ["deploy/chat.env", drop(/^VLLM_IMAGE=.*\n/m)],
    refusedBy: ["engine/unknown"],
  },
  {
    fact: "the env-key seat's model",
    fleet: KEYS_FLEET,
    edit: ["deploy/chat.env", drop(/^MODEL=.*\n/m)],
    refusedBy: ["engine/unknown-model"],
  },
  {
    fact: "the env-key seat's card",
    fleet: KEYS_FLEET,
    edit: ["deploy/chat.env", drop(/^CUDA_VISIBLE_DEVICES=.*\n/m)],
    refusedBy: ["fleet/unknown-card"],
  },
  {
    fact: "the card local runs on",
    fleet: ENV_FLEET,
    edit: ["deploy/local.env", drop(/^CUDA_VISIBLE_DEVICES=1\n/m)],
    refusedBy: ["fleet/unknown-card", "fleet/unsized"],
  },
  {
    fact: "the compose host's inventory",
    fleet: COMPOSE_FLEET,
    edit: ["kvgate.yaml", drop(/^fleet:[\s\S]*$/m)],
    refusedBy: ["fleet/unsized"],
  },
  {
    fact: "the compose service's model",
    fleet: COMPOSE_FLEET,
    edit: ["compose.yaml", drop(/"--model", "Qwen\/Qwen3-4B", /)],
    refusedBy: ["engine/unknown-model", "fleet/unsized"],
  },
  {
    fact: "the compose service's --max-model-len",
    fleet: COMPOSE_FLEET,
    edit: ["compose.yaml", drop(/"--max-model-len", "16384", /)],
    refusedBy: ["kv/covers-context"],
  },
  {
    fact: "the compose service's device reservation",
    fleet: COMPOSE_FLEET,
    edit: ["compose.yaml", drop(/^ {4}deploy:[\s\S]*$/m)],
    refusedBy: ["fleet/unknown-card", "fleet/unsized"],
  },
  { fact: "the unit host's inventory", fleet: UNIT_FLEET, edit: ["kvgate.yaml", drop(/^fleet:[\s\S]*$/m)], refusedBy: ["fleet/unsized"] },
  {
    fact: "the unit's --gpus",
    fleet: UNIT_FLEET,
    edit: ["units/vllm-chat.service", drop(/--gpus device=1 /)],
    refusedBy: ["fleet/unknown-card", "fleet/unsized"],
  },
  {
    fact: "the unit's model",
    fleet: UNIT_FLEET,
    edit: ["units/vllm-chat.service", drop(/--model Qwen\/Qwen3-4B /)],
    refusedBy: ["engine/unknown-model", "fleet/unsized"],
  },
  {
    fact: "the unit's KV pin (vLLM's profiler then takes 0.9 of the card: fine alone, so the context must not fit either)",
    fleet: UNIT_FLEET,
    edit: ["units/vllm-chat.service", drop(/--max-model-len 16384 /)],
    refusedBy: ["kv/covers-context"],
  },
];

const errors = (found: Actual[]) => found.filter((f) => f.severity === "error" && f.status === "open");

describe("a fleet sized in full passes", () => {
  test.each([
    ["env files", ENV_FLEET, 3],
    ["env keys", KEYS_FLEET, 1],
    ["a compose-only host", COMPOSE_FLEET, 1],
    ["a systemd-unit host", UNIT_FLEET, 1],
  ] as const)("%s", async (_name, files, seats) => {
    const found = await runCase({ name: "sized", files });
    expect(errors(found)).toEqual([]);
    expect(found.filter((f) => f.rule === "fleet/unsized")).toEqual([]);
    expect(seats).toBeGreaterThan(0);
  });
});

describe("remove any one fact: refused, never a pass", () => {
  test.each(REMOVALS.map((r) => [r.fact, r] as const))("%s", async (_fact, r) => {
    const [path, without] = r.edit;
    const files: Files = { ...r.fleet };
    const text = without(files[path] as string);
    if (text === null) delete files[path];
    else files[path] = text;
    const open = errors(await runCase({ name: r.fact, files }));
    expect(open.length, "refused").toBeGreaterThan(0);
    expect(
      open.map((f) => f.rule).filter((rule) => r.refusedBy.includes(rule)),
      JSON.stringify(open.map((f) => [f.rule, f.message])),
    ).not.toEqual([]);
  });
});

describe("what is not a missing fact", () => {
  test("an image removed where the flags still name vLLM: sized for each release kvgate allows, and explain says it assumed them", async () => {
    const files = { ...ENV_FLEET, "deploy/embed.env": (ENV_FLEET["deploy/embed.env"] as string).replace(/^VLLM_IMAGE=.*\n/m, "") };
    expect(errors(await runCase({ name: "no image", files }))).toEqual([]);
    const ctx = await contextOf({ name: "no image", files });
    const seats = explainVllm(ctx.after, ctx.policy, ctx.pack).services;
    const embed = seats.find((s) => s.name === "embed");
    expect(embed?.vllm_version).toBeNull();
    expect(embed?.assumed_vllm_versions?.length).toBeGreaterThan(1);
    for (const v of embed?.assumed_vllm_versions ?? []) expect(v).toMatch(/^0\.\d+\.\d+$/);
    expect(seats.find((s) => s.name === "chat")?.vllm_version).toBe("0.10.2");
  });
});
