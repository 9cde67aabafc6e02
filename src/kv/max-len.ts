// max_model_len as vLLM derives and verifies it (vllm/config/model.py _get_and_verify_max_len,
// read at commit 0052a5b8 and through its history back to v0.5):
// - the derived maximum is the smallest of the config's max-length keys (max_position_embeddings, …;
//   model_max_length replaces it when present);
// - then capped to the config's sliding_window when sliding window is off (--disable-sliding-window;
//   vLLM 0.5.1–0.6.4 turned it off itself for Gemma-2's interleaved window, PR #5908 until PR #10584,
//   version fact gemma2_window_cap) and to the tokenizer's model_max_length (tokenizer_config.json);
// - rope scaling multiplies it by `factor` for every rope type except su, longrope and llama3 (whose
//   max_position_embeddings is already the long figure); yarn first resets it to
//   original_max_position_embeddings; default/mrope carry no factor. Gemma-3 is skipped: its 128K is
//   already scaled ("gemma3" in model_type);
// - with no --max-model-len vLLM uses the derived value (longrope: original_max_position_embeddings);
// - a longer --max-model-len is refused unless model_max_length allows it or
//   VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 (then only a warning);
// - `--max-model-len auto` / `-1` (human_readable_int_or_auto, PR #29431) fits the length to the
//   memory at boot (kv_cache_utils._auto_fit_max_model_len): it cannot be sized ahead.
// Flag values: vllm/engine/arg_utils.py human_readable_int — k/m/g/t ×1000 (fractions allowed,
// truncated as Python's int(float(n) × mult) does), K/M/G/T ×1024 (integers only), else Python
// int(), which takes `32_768`, a sign and leading zeros.
import type { ModelFacts, RopeScaling } from "./facts.js";

export interface DerivedMaxLen {
  /** The derived maximum (what a longer --max-model-len is compared with). */
  value: number;
  /** The config key it came from (`max_position_embeddings`, `default` when the config has none). */
  key: string;
  /** The rope factor applied (1 when none). */
  factor: number;
  /** What vLLM uses when the service sets no --max-model-len. */
  defaultLen: number;
  /** Why the figure is what it is, for messages: `yarn 4 × original 32,768`. */
  via: string;
}

export interface MaxLenProblem {
  field: string;
  message: string;
  fix: string;
}

const NO_FACTOR = new Set(["su", "longrope", "llama3"]);

/** What caps the derived maximum before rope scaling, as _get_and_verify_max_len applies them. */
export interface MaxLenCaps {
  /** --disable-sliding-window (or vLLM turning it off for Gemma-2): the config's sliding window. */
  slidingWindow?: number | null;
  /** The tokenizer's model_max_length (tokenizer_config.json). */
  tokenizerMaxLength?: number | null;
}

export function derivedMaxModelLen(
  facts: Pick<ModelFacts, "maxLen" | "rope" | "modelType" | "originalMaxPositionEmbeddings">,
  caps: MaxLenCaps = {},
): DerivedMaxLen | MaxLenProblem {
  let value = facts.maxLen?.value ?? Number.POSITIVE_INFINITY;
  let key = facts.maxLen?.key ?? "";
  // Sliding window turned off: the length must stay within the window (max_len_key "sliding_window").
  if (caps.slidingWindow !== undefined && caps.slidingWindow !== null && caps.slidingWindow < value) {
    value = caps.slidingWindow;
    key = "sliding_window";
  }
  if (caps.tokenizerMaxLength !== undefined && caps.tokenizerMaxLength !== null && caps.tokenizerMaxLength < value) {
    value = caps.tokenizerMaxLength;
    key = "tokenizer model_max_length";
  }
  if (!Number.isFinite(value)) {
    // vLLM warns and assumes 2048 when the config has none of the keys.
    value = 2048;
    key = "default";
  }
  let factor = 1;
  let via = `${key} ${value}`;
  const gemma3 = (facts.modelType ?? "").includes("gemma3");
  if (facts.rope.length > 0 && !gemma3) {
    for (const rp of facts.rope) {
      if (NO_FACTOR.has(rp.type)) continue;
      factor = rp.factor ?? factor;
      if (rp.type === "yarn") {
        if (rp.originalMax === null) {
          return {
            field: "rope_scaling.original_max_position_embeddings",
            message: "yarn rope scaling without original_max_position_embeddings: vLLM fails to start (KeyError)",
            fix: "add original_max_position_embeddings to the yarn rope scaling",
          };
        }
        value = rp.originalMax;
        via = `original_max_position_embeddings ${rp.originalMax}`;
      }
    }
    if (factor !== 1) via = `${facts.rope.map((r) => r.type).join("/")} ${factor} × ${via}`;
    value *= factor;
  } else if (gemma3 && facts.rope.length > 0) {
    via += " (gemma3: already scaled)";
  }
  const longrope = facts.rope.some((r) => r.type === "longrope");
  const defaultLen = Math.trunc(longrope ? (facts.originalMaxPositionEmbeddings ?? value) : value);
  return { value, key, factor, defaultLen, via };
}

export type MaxLenRequest = number | "auto" | null;

export type ResolvedMaxLen =
  | { ok: true; maxModelLen: number; source: "derived" | "requested" | "auto"; derived: DerivedMaxLen; warning?: string }
  | { ok: false; problem: MaxLenProblem };

/** The max_model_len a seat boots with, or vLLM's refusal. `auto` resolves to the upper bound (the derived default). */
export function resolveMaxModelLen(
  facts: Pick<ModelFacts, "maxLen" | "rope" | "modelType" | "originalMaxPositionEmbeddings" | "modelMaxLength">,
  requested: MaxLenRequest,
  opts: { allowLong?: boolean; caps?: MaxLenCaps } = {},
): ResolvedMaxLen {
  const derived = derivedMaxModelLen(facts, opts.caps);
  if ("field" in derived) return { ok: false, problem: derived };
  if (requested === null) return { ok: true, maxModelLen: derived.defaultLen, source: "derived", derived };
  if (requested === "auto" || requested === -1) return { ok: true, maxModelLen: derived.defaultLen, source: "auto", derived };
  if (!Number.isSafeInteger(requested) || requested <= 0) {
    return {
      ok: false,
      problem: {
        field: "max_model_len",
        message: `--max-model-len ${requested} is not a length vLLM can serve`,
        fix: "set a positive number of tokens, or auto",
      },
    };
  }
  if (requested > derived.value) {
    const mml = facts.modelMaxLength;
    if (mml !== null && requested <= mml) return { ok: true, maxModelLen: requested, source: "requested", derived };
    const msg = `--max-model-len ${requested} is greater than the derived max_model_len (${derived.via} = ${derived.value})`;
    if (opts.allowLong)
      return {
        ok: true,
        maxModelLen: requested,
        source: "requested",
        derived,
        warning: `${msg}: VLLM_ALLOW_LONG_MAX_MODEL_LEN lets it boot; positions past ${derived.value} give NaN or out-of-bounds errors`,
      };
    return {
      ok: false,
      problem: {
        field: "max_model_len",
        message: `${msg}: vLLM refuses to start`,
        fix: `set --max-model-len ${derived.value} or less, or turn on rope scaling (YaRN) for a longer context`,
      },
    };
  }
  return { ok: true, maxModelLen: requested, source: "requested", derived };
}

function asRecord(v: unknown): Record<string, unknown> | null {
  return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
}

function ropeEntry(v: unknown): RopeScaling | null {
  const r = asRecord(v);
  if (!r) return null;
  const type = typeof r.rope_type === "string" ? r.rope_type : typeof r.type === "string" ? r.type : null;
  if (type === null) return null;
  return {
    type: type === "mrope" ? "default" : type,
    factor: typeof r.factor === "number" ? r.factor : null,
    originalMax: typeof r.original_max_position_embeddings === "number" ? r.original_max_position_embeddings : null,
  };
}

/**
 * The model facts after a service's --hf-overrides (rope_scaling, rope_parameters,
 * max_position_embeddings) or the older --rope-scaling JSON: vLLM applies them to the config before
 * deriving the length.
 */
export function withConfigOverrides<F extends Pick<ModelFacts, "maxLen" | "rope">>(
  facts: F,
  hfOverrides: unknown,
  ropeScaling?: unknown,
): F {
  let out = facts;
  const o = asRecord(hfOverrides);
  const rope = ropeEntry(o?.rope_scaling) ?? ropeEntry(o?.rope_parameters) ?? ropeEntry(ropeScaling);
  if (rope) out = { ...out, rope: [rope] };
  const mpe = o?.max_position_embeddings;
  if (typeof mpe === "number" && mpe > 0) {
    // The derived maximum is the smallest key; model_max_length replaces them all (as vLLM reads them).
    const cur = out.maxLen;
    const keep = cur !== null && (cur.key === "model_max_length" || (cur.key !== "max_position_embeddings" && cur.value <= mpe));
    out = { ...out, maxLen: keep ? cur : { value: mpe, key: "max_position_embeddings" } };
  }
  return out;
}

export type IntRead = { ok: true; value: number } | { ok: false; message: string };

/**
 * vLLM's human_readable_int (and human_readable_int_or_auto with `auto`: `-1` / `auto` → -1).
 * What vLLM refuses is refused here with the same reason.
 */
export function parseHumanReadableInt(text: string, opts: { auto?: boolean } = {}): IntRead {
  const value = text.trim();
  if (opts.auto && (value === "-1" || value.toLowerCase() === "auto")) return { ok: true, value: -1 };
  const m = /^(\d+(?:\.\d+)?)([kKmMgGtT])$/.exec(value);
  if (m) {
    const num = m[1] as string;
    const suffix = m[2] as string;
    const decimal: Record<string, number> = { k: 1e3, m: 1e6, g: 1e9, t: 1e12 };
    const binary: Record<string, number> = { K: 2 ** 10, M: 2 ** 20, G: 2 ** 30, T: 2 ** 40 };
    const d = decimal[suffix];
    if (d !== undefined) return safe(text, Math.trunc(Number.parseFloat(num) * d));
    if (!/^\d+$/.test(num))
      return {
        ok: false,
        message: `"${text}": decimals are not allowed with binary suffixes like ${suffix}; did you mean ${num}${suffix.toLowerCase()}?`,
      };
    return safe(text, Number(num) * (binary[suffix] as number));
  }
  // Python int(): optional sign, digits with single underscores between them.
  if (/^[+-]?\d+(?:_\d+)*$/.test(value)) return safe(text, Number(value.replace(/_/g, "")));
  return {
    ok: false,
    message:
      `"${text}" is not a value vLLM accepts: a whole number (32768 or 32_768), k/m/g/t ` +
      `(×1000) or K/M/G/T (×1024) such as 32k or 32K${opts.auto ? ", or auto" : ""}`,
  };
}

function safe(text: string, n: number): IntRead {
  return Number.isSafeInteger(n) ? { ok: true, value: n } : { ok: false, message: `"${text}" is too large` };
}
