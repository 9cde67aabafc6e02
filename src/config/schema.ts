// The kvgate.yaml schema (docs/config.md): the one source of truth for validation, for the
// types the code uses, and for `kvgate schema` / rules/kvgate.schema.json.
import * as z from "zod";
import { RE2JS } from "re2js";
import { parseBytes } from "../units/bytes.js";

/**
 * Why a placeholder pattern is refused, or null. Patterns run in RE2 semantics (re2js, linear in the
 * input): a pull request can edit kvgate.yaml, and in a backtracking engine `(A+)+x` stalls the gate on
 * one long value. RE2 has no backreferences and no lookaround; the message says so and what to do.
 */
export function re2Problem(pattern: string): string | null {
  try {
    RE2JS.compile(pattern);
    return null;
  } catch (e) {
    try {
      new RegExp(pattern);
    } catch {
      return "not a valid regular expression";
    }
    const why = e instanceof Error ? e.message.replace(/^error parsing regexp: /, "") : String(e);
    return `not a linear-time (RE2) regular expression (${why}): drop backreferences and lookaround, or list the exact value under secrets.placeholders.values`;
  }
}

/**
 * The schemas, built on first use: zod builds every object, refinement and description as it is
 * declared (6 ms of a run's start), and a run whose kvgate.yaml it has already read (the policy
 * cache, src/load/policy-cache.ts) or that has none validates nothing.
 */
function buildSchemas() {
  /** Integer bytes, or `<number><B|KiB|MiB|GiB|TiB|KB|MB|GB|TB>`. */
  const ByteQuantity = z
    .union([
      z.number().int().nonnegative(),
      z
        .string()
        .regex(/^\d+(\.\d+)?\s*(B|KiB|MiB|GiB|TiB|KB|MB|GB|TB)$/, {
          message: "expected bytes: an integer or a string like 22GiB, 512MiB, 5.5GiB (units B KiB MiB GiB TiB KB MB GB TB)",
          // A malformed quantity gets one message, not also the size check's.
          abort: true,
        })
        .refine((s) => parseBytes(s).ok, { message: "too large: a byte quantity must stay below 2^53 bytes" }),
    ])
    .describe("Bytes: an integer, or a number with a unit (B, KiB, MiB, GiB, TiB, KB, MB, GB, TB).");

  /** 2^53 bytes in MiB: a larger figure (1e308) would make the arithmetic Infinity, so it is refused by name. */
  const MAX_MIB = Number.MAX_SAFE_INTEGER / 2 ** 20;
  const mibFigure = () => z.number().max(MAX_MIB, { message: `too large: at most ${Math.floor(MAX_MIB)} MiB (2^53 bytes)` });
  /** A KV or YaRN factor: a multiple of a context, never past 1000× (1e308 would overflow every product). */
  const factorFigure = () => z.number().positive().max(1000, { message: "too large: a factor is at most 1000" });

  /** `>=0.10`, `>=0.10 <0.12`, `0.11.x`, `0.11.0`: comparators joined by spaces (every one must hold). */
  const VersionRange = z.string().regex(/^\s*(?:(?:>=|<=|>|<|=)?\s*v?\d+(?:\.(?:\d+|x))*\s*)+$/, {
    message: 'expected a version range such as ">=0.10", ">=0.10 <0.12" or "0.11.x"',
  });

  const GpuSpec = z.strictObject({
    index: z.number().int().nonnegative().describe("The card's index on the host (CUDA order)."),
    name: z
      .string()
      .min(1)
      .optional()
      .describe(
        "The card's model as nvidia-smi names it (`A100-SXM4-80GB`, `NVIDIA GeForce " +
          "RTX 4090`): sets vLLM's batch defaults (EngineArgs.get_batch_defaults) and, " +
          "for a card rules/cards.yaml knows, the default `total` and `cuda_total`.",
      ),
    total: ByteQuantity.optional().describe(
      "The card's total memory. Default, for a card rules/cards.yaml knows by `name`: what CUDA reports for it.",
    ),
    reserve: ByteQuantity.optional().describe("What must stay free at plateau. Default 0."),
    cuda_total: ByteQuantity.optional().describe(
      "What CUDA reports as the card's total (torch.cuda.mem_get_info, vLLM's `total_gpu_memory`; " +
        'e.g. 79.15GiB on an "80 GB" A100): vLLM\'s utilization × total and its boot ' +
        "check use it. Default: rules/cards.yaml's figure for the named card, else `total`.",
    ),
  });

  /** A Kubernetes node pool (docs/kubernetes.md): the card its nodes carry, how many, and what must stay free. */
  const PoolSpec = z
    .strictObject({
      card: z.string().min(1).optional().describe("The card, by a name or alias of rules/cards.yaml (e.g. NVIDIA-L4, nvidia-h100-80gb)."),
      cuda_total_mib: z
        .number()
        .int()
        .positive()
        .optional()
        .describe(
          "What CUDA reports as the card's total (torch.cuda.mem_get_info, " +
            "vLLM's total_gpu_memory; a little under nvidia-smi's memory.total), " +
            "in MiB. Default: the card's figure in rules/cards.yaml.",
        ),
      count: z.number().int().positive().optional().describe("Physical GPUs in the pool. Default: as many as its pods ask for."),
      reserve: ByteQuantity.optional().describe("What must stay free on each card at plateau. Default 0."),
      device_plugin_config: z
        .string()
        .min(1)
        .optional()
        .describe(
          "The NVIDIA device plugin config the pool's nodes use (their nvidia.com/device-plugin.config label), when the repository's config holds several.",
        ),
    })
    .refine((p) => p.card !== undefined || p.cuda_total_mib !== undefined, { message: "name the pool's card, or give its cuda_total_mib" });

  const TenantSpec = z.strictObject({
    name: z.string().min(1),
    host: z.string().min(1),
    gpu: z.number().int().nonnegative(),
    vram: ByteQuantity.describe("What the tenant holds on its card."),
    pin: z.boolean().optional().describe("`kvgate plan` keeps a pinned tenant on its card."),
  });

  const ModelSpec = z.strictObject({
    layers: z.number().int().positive().describe("num_hidden_layers"),
    kv_heads: z.number().int().positive().optional().describe("num_key_value_heads"),
    head_dim: z.number().int().positive().optional().describe("head_dim; beats hidden_size / attention_heads"),
    hidden_size: z.number().int().positive().optional(),
    attention_heads: z.number().int().positive().optional().describe("num_attention_heads"),
    kv_lora_rank: z.number().int().positive().optional().describe("MLA models: the compressed KV rank"),
    qk_rope_head_dim: z.number().int().nonnegative().optional().describe("MLA models: the decoupled RoPE dimension"),
    qk_nope_head_dim: z
      .number()
      .int()
      .nonnegative()
      .optional()
      .describe("MLA models: the non-RoPE query/key dimension (vLLM before 0.7.1 cached per-head K/V of qk_nope + qk_rope)"),
    tokenizer_max_length: z
      .number()
      .int()
      .positive()
      .optional()
      .describe("model_max_length of the model's tokenizer_config.json: vLLM caps the derived maximum context to it"),
    max_context: z.number().int().positive().describe("max_position_embeddings of the model's config"),
    yarn: z
      .strictObject({ factor: factorFigure(), original_max_position_embeddings: z.number().int().positive() })
      .optional()
      .describe("YaRN metadata the published config carries"),
    weights: ByteQuantity.describe("Weights size on the card at TP 1"),
    dtype: z.enum(["bfloat16", "float16", "float32", "fp8"]).optional().describe("Default bfloat16"),
    aliases: z.array(z.string()).optional().describe("Served names and local paths' last parts"),
    note: z.string().optional(),
    // Per-layer facts (docs/vllm-sizing.md#model-facts). All optional: an entry without them is sized as full
    // attention on every layer, as before.
    model_type: z.string().min(1).optional().describe("model_type of the text config (gemma3_text, llama4_text, ...)"),
    layer_pattern: z
      .string()
      .regex(/^[FSCL]+$/, {
        message:
          "layer_pattern is a string of F (full), S (sliding window), C (chunked local), L (linear/state-space), repeated from layer 0",
      })
      .optional()
      .describe("Attention kind per layer, repeated from layer 0: F full, S sliding window, C chunked local, L linear/state-space"),
    sliding_window: z.number().int().positive().optional().describe("sliding_window of the S layers"),
    attention_chunk_size: z.number().int().positive().optional().describe("attention_chunk_size of the C layers"),
    linear_state: z
      .strictObject({
        num_key_heads: z.number().int().positive(),
        num_value_heads: z.number().int().positive(),
        key_head_dim: z.number().int().positive(),
        value_head_dim: z.number().int().positive(),
        conv_kernel: z.number().int().positive(),
      })
      .optional()
      .describe(
        "Gated-delta-net state of the L layers (linear_num_key_heads, linear_num_value_heads, " +
          "linear_key_head_dim, linear_value_head_dim, linear_conv_kernel_dim)",
      ),
    rope_scaling: z
      .strictObject({
        type: z.string().min(1),
        factor: factorFigure().optional(),
        original_max_position_embeddings: z.number().int().positive().optional(),
      })
      .optional()
      .describe("rope_scaling / rope_parameters as published (yarn, linear, dynamic, llama3, longrope, ...)"),
    intermediate_size: z.number().int().positive().optional(),
    vocab_size: z.number().int().positive().optional(),
    experts: z
      .strictObject({
        count: z.number().int().positive(),
        per_token: z.number().int().positive(),
        intermediate: z.number().int().positive().optional().describe("moe_intermediate_size: one expert's MLP width"),
      })
      .optional()
      .describe("MoE: experts per layer (all resident), experts per token and one expert's width"),
    quantization: z
      .string()
      .min(1)
      .optional()
      .describe("quant_method of the checkpoint (fp8, mxfp4, awq, gptq, modelopt_fp4, compressed-tensors)"),
    overhead: ByteQuantity.optional().describe(
      "Measured profiler overhead per seat (activation peak + non-torch), when the estimate is known to be low",
    ),
  });

  /**
   * A KV factor below 1 sizes a cache smaller than one max-length request, which vLLM refuses to boot
   * with (kv_cache_utils._check_enough_kv_cache_memory; src/kv/attention.ts MIN_KV_FACTOR).
   */
  const MIN_FACTOR_MESSAGE =
    "must be at least 1: vLLM refuses to boot when the KV cache cannot hold one max-length request; use 1 for exactly one request";

  const SeatException = z.strictObject({
    pinned: ByteQuantity.optional().describe("The owner's number: the seat must be pinned exactly to it."),
    by: z.string().optional().describe("Who owns the number."),
    factor: z
      .number()
      .gte(1, { message: MIN_FACTOR_MESSAGE })
      .max(1000, { message: "too large: a factor is at most 1000" })
      .optional()
      .describe("Replaces kv.factor for this seat; at least 1."),
    why: z.string().optional(),
    yarn: z.enum(["allow", "forbid"]).optional().describe("forbid makes kv/yarn an error."),
  });

  /** `kvgate usage`: which LiteLLM model names belong to a service, and what a runaway reply is. */
  const UsageSpec = z
    .strictObject({
      runaway_tokens: z
        .number()
        .int()
        .positive()
        .optional()
        .describe(
          "A reply of this many completion tokens or more is a runaway (so is one that reaches the seat's output cap). Default 100000.",
        ),
      models: z
        .record(z.string().min(1), z.array(z.string().min(1)))
        .optional()
        .describe("Per service, the LiteLLM model_group or model names that are its traffic, besides the service's own name."),
    })
    .superRefine((u, ctx) => {
      // A name under two services would make a row's service a guess.
      const owner = new Map<string, string>();
      for (const [service, names] of Object.entries(u.models ?? {})) {
        names.forEach((n, i) => {
          const first = owner.get(n);
          if (first !== undefined && first !== service) {
            ctx.addIssue({
              code: "custom",
              path: ["models", service, i],
              message: `"${n}" is already listed under ${first}: a model name belongs to one service`,
            });
          }
          owner.set(n, first ?? service);
        });
      }
    });

  const glob = z.string().min(1);

  const placeholderPattern = z.string().superRefine((s, ctx) => {
    const problem = re2Problem(s);
    if (problem)
      ctx.addIssue({ code: "custom", message: problem.startsWith("not a valid") ? problem : `pattern ${JSON.stringify(s)} is ${problem}` });
  });

  const ConfigSchema = z
    .strictObject({
      version: z.literal(1).optional().describe("Config format version."),
      services: glob.optional().describe('Glob of service env files. Default "scripts/*.env".'),
      ledgers: z.string().min(1).optional().describe('Radiance ledger facts file per service. Default "scripts/{service}.ledger.yaml".'),
      playbooks: glob.optional().describe('Glob of Ansible playbooks. Default "playbooks/**/*.{yml,yaml}".'),
      compose: glob
        .optional()
        .describe('Glob of docker compose files; each service is a deploy. Default "**/{docker-compose,compose}*.{yml,yaml}".'),
      systemd: glob
        .optional()
        .describe('Glob of systemd unit files; a unit whose ExecStart runs an engine is a deploy. Default "**/*.service".'),
      kubernetes: z
        .union([glob, z.array(glob).min(1)])
        .optional()
        .describe(
          "Globs of Kubernetes manifests and Helm values files (multi-document " +
            'YAML); each engine workload is a deploy. Default ["k8s/**/*.{yml,yaml}", ' +
            '"deploy/**/*.{yml,yaml}", "charts/**/values*.{yml,yaml}"].',
        ),
      fleet: z
        .strictObject({
          hosts: z.record(z.string(), z.strictObject({ gpus: z.array(GpuSpec) })).optional(),
          tenants: z.array(TenantSpec).optional(),
          pools: z
            .record(z.string().min(1), PoolSpec)
            .optional()
            .describe(
              "Kubernetes node pools by name: a workload is in a pool when a nodeSelector or " +
                "required node-affinity value names it (or names its card's nvidia.com/gpu.product).",
            ),
        })
        .optional(),
      vllm: z
        .strictObject({
          overhead: ByteQuantity.optional().describe("Non-torch memory + activation peak, per seat. Default 2GiB."),
          default_utilization: z.number().gt(0).lte(1).optional().describe("vLLM's --gpu-memory-utilization default. Default 0.92."),
          context_overhead: ByteQuantity.optional().describe(
            "The booting seat's own CUDA context, counted by kv/boot-check before vLLM measures free memory. Default 512MiB.",
          ),
        })
        .optional(),
      kv: z
        .strictObject({
          factor: z
            .number()
            .gte(1, { message: MIN_FACTOR_MESSAGE })
            .max(1000, { message: "too large: a factor is at most 1000" })
            .optional()
            .describe("KV must cover factor × max context; at least 1. Default 1.25."),
          round: ByteQuantity.optional().describe("Round the requirement up to this. Default 0.5GiB."),
          seats: z.record(z.string(), SeatException).optional().describe("Owner-pinned exceptions by service name."),
        })
        .optional(),
      models: z
        .record(z.string(), ModelSpec.partial())
        .optional()
        .describe(
          "Added to rules/models.yaml, or merged field by field over its entry " +
            "for the same model (explain names the fields overridden). An entry " +
            "the catalog does not know needs layers, max_context and weights.",
        ),
      radiance: z
        .strictObject({
          headroom_floor_mib: mibFigure().nonnegative().optional().describe("Default 48."),
          pool_step_mib: mibFigure().positive().optional().describe("Default 1024."),
        })
        .optional(),
      ttm: z
        .strictObject({
          slot_mib: mibFigure().positive().optional().describe("Checkpoint slot size. Default 111.98."),
          statics_mib: mibFigure().nonnegative().optional().describe("Default 2048."),
          slack_mib: mibFigure().nonnegative().optional().describe("TTM_TARGET_MIB must clear TTM_MIN_MIB by this. Default 1024."),
          guards: z.array(z.string()).optional().describe("Files a ledger-moving commit must touch."),
        })
        .optional(),
      engines: z
        .strictObject({
          vllm: z
            .strictObject({
              versions: VersionRange.optional().describe(
                'The vLLM versions the fleet may run, as a range (">=0.10", ">=0.10 ' +
                  '<0.12", "0.11.x"): a seat whose image tag or VLLM_VERSION names no version ' +
                  "is sized for each of them (refused when it fails on all, warned when on " +
                  "some). Default: the last three minor releases rules/engines.yaml knows.",
              ),
            })
            .optional(),
          generic: z
            .array(z.string().min(1))
            .optional()
            .describe(
              "Engines rules/engines.yaml does not know that you run knowingly with the generic checks only (no engine/unknown for them).",
            ),
        })
        .optional(),
      knobs: z
        .strictObject({ enforce: z.array(z.string()).optional().describe("Engines where one knob per deploy holds. Default [radiance].") })
        .optional(),
      secrets: z
        .strictObject({
          placeholders: z
            .strictObject({
              values: z.array(z.string()).optional().describe("Exact placeholder values, added to the built-in ones."),
              patterns: z
                .array(placeholderPattern)
                .optional()
                .describe("Regexes (RE2 syntax, linear time) a whole value must fully match."),
            })
            .optional(),
          override: z
            .string()
            .regex(/^[A-Za-z_][A-Za-z0-9_]*$/)
            .optional()
            .describe("The override variable. Default ALLOW_SECRETS."),
          exclude: z.array(z.string()).optional().describe("Globs never scanned (each reported as a notice)."),
        })
        .optional(),
      waivers: z.strictObject({ trailer: z.string().min(1).optional().describe("Default Kvgate-Waive.") }).optional(),
      usage: UsageSpec.optional(),
      observed: z
        .string()
        .min(1)
        .optional()
        .describe(
          "The file `kvgate observe --write` made (e.g. observed.yaml): each card's plateau free memory, which gpu/plateau checks against the card's reserve.",
        ),
    })
    .describe("kvgate.yaml: the policy of a fleet repository. Every key is optional.");
  return { ConfigSchema, ModelSpec };
}

type Schemas = ReturnType<typeof buildSchemas>;
let built: Schemas | null = null;

/** kvgate.yaml's schema (built on first use). */
export function configSchema(): Schemas["ConfigSchema"] {
  built ??= buildSchemas();
  return built.ConfigSchema;
}

/** One model's facts: kvgate.yaml's `models:` entries and rules/models.yaml (built on first use). */
export function modelSpecSchema(): Schemas["ModelSpec"] {
  built ??= buildSchemas();
  return built.ModelSpec;
}

export type Config = z.infer<Schemas["ConfigSchema"]>;

/**
 * What CUDA reports as a named card's total, from the card table above this layer (rules/cards.yaml,
 * handed in by the caller): null for a card the table does not know.
 */
export type CardLookup = (name: string) => { cuda_total_bytes: number } | null;

/** kvgate.yaml's schema with each card's total required unless the card table knows its name. */
export function configSchemaWith(cards: CardLookup | undefined) {
  return configSchema().superRefine((c, ctx) => {
    for (const [host, h] of Object.entries(c.fleet?.hosts ?? {}))
      h.gpus.forEach((g, i) => {
        if (g.total !== undefined || (g.name !== undefined && cards?.(g.name))) return;
        ctx.addIssue({
          code: "custom",
          path: ["fleet", "hosts", host, "gpus", i, "total"],
          message:
            g.name === undefined
              ? "required: the card's total memory (e.g. total: 80GiB), or a `name` rules/cards.yaml knows (e.g. name: A100-SXM4-80GB)"
              : `required: rules/cards.yaml does not know the card "${g.name}", so give its total memory (e.g. total: 80GiB)`,
        });
      });
  });
}
export type ModelSpecInput = z.infer<Schemas["ModelSpec"]>;
export type ModelOverrideInput = Partial<ModelSpecInput>;
