// Sanity bounds on a model's config.json before the KV arithmetic reads it (docs/vllm-sizing.md#model-facts):
// a pull request is untrusted input, and the arithmetic sizes arrays and loops by these numbers
// (`num_hidden_layers: 400000000` ran node out of memory). Each bound is far above every published
// model (the largest have 160 layers, 128 heads, 25,600 hidden, 262,144 vocab, 10M context, 512
// experts) and far below what would hurt; a number past one is refused with its field named, and the
// seat is then not sized from it (fail closed). The JSON's shape is bounded too: nesting and nodes.
import { formatInt } from "../units/bytes.js";

const LAYERS = 4_096;
const HEADS = 16_384;
const WIDTH = 1_048_576;
const CONTEXT = 1_073_741_824;
const EXPERTS = 65_536;

/** The most a field may hold, by its key, wherever it sits (the text config, a vision config, rope_scaling). */
const BOUNDS: Readonly<Record<string, number>> = {
  num_hidden_layers: LAYERS,
  num_layers: LAYERS,
  n_layer: LAYERS,
  max_window_layers: LAYERS,
  num_attention_heads: HEADS,
  n_head: HEADS,
  num_key_value_heads: HEADS,
  num_kv_heads: HEADS,
  n_head_kv: HEADS,
  multi_query_group_num: HEADS,
  linear_num_key_heads: HEADS,
  linear_num_value_heads: HEADS,
  hidden_size: WIDTH,
  n_embd: WIDTH,
  d_model: WIDTH,
  head_dim: WIDTH,
  hidden_size_per_head: WIDTH,
  kv_lora_rank: WIDTH,
  q_lora_rank: WIDTH,
  qk_rope_head_dim: WIDTH,
  qk_nope_head_dim: WIDTH,
  v_head_dim: WIDTH,
  linear_key_head_dim: WIDTH,
  linear_value_head_dim: WIDTH,
  linear_conv_kernel_dim: WIDTH,
  intermediate_size: 16 * WIDTH,
  moe_intermediate_size: 16 * WIDTH,
  vocab_size: 16 * WIDTH,
  max_position_embeddings: CONTEXT,
  original_max_position_embeddings: CONTEXT,
  n_positions: CONTEXT,
  max_seq_len: CONTEXT,
  seq_length: CONTEXT,
  max_target_positions: CONTEXT,
  max_sequence_length: CONTEXT,
  max_seq_length: CONTEXT,
  seq_len: CONTEXT,
  sliding_window: CONTEXT,
  attention_chunk_size: CONTEXT,
  sliding_window_pattern: CONTEXT,
  full_attention_interval: CONTEXT,
  no_rope_layer_interval: CONTEXT,
  // Some tokenizer-derived configs carry int(1e30) here; it only caps the context, so it is held to exact integers.
  model_max_length: Number.MAX_SAFE_INTEGER,
  num_experts: EXPERTS,
  num_local_experts: EXPERTS,
  n_routed_experts: EXPERTS,
  moe_num_experts: EXPERTS,
  n_shared_experts: EXPERTS,
  num_experts_per_tok: EXPERTS,
  experts_per_token: EXPERTS,
  factor: EXPERTS,
  bits: 64,
};

/** Per-layer lists: no longer than a model has layers. */
const PER_LAYER = new Set(["layer_types", "no_rope_layers"]);

/** The JSON's shape: a config.json nests 4 levels; a safetensors index has a node per tensor (DeepSeek-V3: 91,000). */
const JSON_LIMITS = { depth: 64, nodes: 2_000_000 };

export interface BoundProblem {
  /** The field, as a path (`text_config.num_hidden_layers`), or "(file)" for the file's shape. */
  field: string;
  message: string;
}

const join = (path: string, key: string | number): string => (typeof key === "number" ? `${path}[${key}]` : path ? `${path}.${key}` : key);

/**
 * The first problem of a parsed model file: nested past JSON_LIMITS.depth, more than JSON_LIMITS.nodes
 * values, or (with `bounds`, a config.json) a number past its field's bound or a per-layer list longer
 * than a model has layers. Walked without recursion: a hostile depth cannot overflow the stack.
 */
export function modelFileProblem(json: unknown, bounds: boolean): BoundProblem | null {
  const stack: { value: unknown; path: string; key: string; depth: number }[] = [{ value: json, path: "", key: "", depth: 0 }];
  let nodes = 0;
  while (stack.length > 0) {
    const { value, path, key, depth } = stack.pop() as (typeof stack)[number];
    nodes++;
    if (depth > JSON_LIMITS.depth)
      return { field: path || "(file)", message: `nests more than ${JSON_LIMITS.depth} levels deep: a model's config.json nests a few` };
    if (bounds && typeof value === "number") {
      const max = BOUNDS[key];
      if (max !== undefined && !(value <= max))
        return {
          field: path,
          message:
            `${path} is ${Number.isFinite(value) ? formatInt(value) : String(value)}, ` +
            `above the ${formatInt(max)} any model has: kvgate does not size a model from it`,
        };
    }
    const children = Array.isArray(value) ? value.length : typeof value === "object" && value !== null ? Object.keys(value).length : 0;
    if (nodes + stack.length + children > JSON_LIMITS.nodes)
      return { field: "(file)", message: `holds more than ${formatInt(JSON_LIMITS.nodes)} JSON values: not a model file kvgate reads` };
    if (Array.isArray(value)) {
      if (bounds && PER_LAYER.has(key) && value.length > LAYERS)
        return { field: path, message: `${path} lists ${formatInt(value.length)} layers, above the ${formatInt(LAYERS)} any model has` };
      value.forEach((v, i) => stack.push({ value: v, path: join(path, i), key: "", depth: depth + 1 }));
    } else if (typeof value === "object" && value !== null) {
      for (const [k, v] of Object.entries(value)) stack.push({ value: v, path: join(path, k), key: k, depth: depth + 1 });
    }
  }
  return null;
}
