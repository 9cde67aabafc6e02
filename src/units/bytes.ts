// Byte, token and flag-value units. Three readers, because three readers exist in the wild:
// - parseBytes: what the gate reads itself (config, env keys): plain bytes or IEC/SI strings.
// - parseVllmInt: vLLM's own human_readable_int for flag values (what the engine accepts at boot).
// - parseTokens: token counts in env keys (plain integers, or vLLM's k/K forms).

export const KiB = 1024;
export const MiB = 1024 ** 2;
export const GiB = 1024 ** 3;
export const TiB = 1024 ** 4;

const UNIT_BYTES: Record<string, number> = {
  B: 1,
  KIB: KiB,
  MIB: MiB,
  GIB: GiB,
  TIB: TiB,
  KB: 1e3,
  MB: 1e6,
  GB: 1e9,
  TB: 1e12,
  // vLLM's one-letter forms as the gate reads them in env keys: `22G` is what vLLM would read.
  K: KiB,
  M: MiB,
  G: GiB,
  T: TiB,
  k: 1e3,
  m: 1e6,
  g: 1e9,
  t: 1e12,
};

export type UnitResult = { ok: true; value: number } | { ok: false; message: string };

/** Past 2^53 a double no longer holds every whole byte (and 400 digits read as Infinity): refuse it. */
function inRange(text: string, value: number, integer = true): UnitResult {
  if (!Number.isFinite(value) || (integer && !Number.isSafeInteger(value)) || value > Number.MAX_SAFE_INTEGER) {
    return { ok: false, message: `"${clipped(text)}" is too large: write a value below ${Number.MAX_SAFE_INTEGER}` };
  }
  return { ok: true, value };
}

function clipped(s: string): string {
  return s.length > 40 ? `${s.slice(0, 37)}...` : s;
}

/**
 * Bytes from a plain integer or `<number><unit>`; units B KiB MiB GiB TiB KB MB GB TB, and vLLM's
 * single letters (K M G T binary, k m g t decimal). Results are rounded down to whole bytes.
 */
export function parseBytes(text: string): UnitResult {
  const s = text.trim();
  const m = /^(\d+(?:\.\d+)?)\s*([A-Za-z]*)$/.exec(s);
  if (!m) return { ok: false, message: `"${text}" is not a byte quantity: use bytes or a number with a unit (5.5GiB, 512MiB, 22G)` };
  const num = Number(m[1]);
  const unit = m[2] ?? "";
  if (unit === "") {
    if (Number.isFinite(num) && !Number.isInteger(num)) return { ok: false, message: `"${text}": plain bytes must be an integer` };
    return inRange(text, num);
  }
  const mult = unit.length === 1 ? UNIT_BYTES[unit] : UNIT_BYTES[unit.toUpperCase()];
  if (mult === undefined || (unit.length > 1 && !/^(B|[KMGT]i?B)$/i.test(unit))) {
    return { ok: false, message: `"${text}": unknown unit "${unit}" (use B, KiB, MiB, GiB, TiB, KB, MB, GB, TB)` };
  }
  return inRange(text, Math.floor(num * mult));
}

/** parseBytes, for config values that zod has already shaped: an integer or a unit string. */
export function bytesOf(q: number | string): number {
  if (typeof q === "number") return q;
  const r = parseBytes(q);
  if (!r.ok) throw new Error(r.message);
  return r.value;
}

/**
 * vLLM's `human_readable_int` (vllm/engine/arg_utils.py): a plain integer, or a number followed by one
 * of k/m/g/t (decimal; fractions allowed: `1.5k`) or K/M/G/T (binary; integers only: `25.6K` is refused).
 * Anything else (`22GiB`, `22GB`) is what vLLM refuses at boot.
 */
export function parseVllmInt(text: string): UnitResult {
  const s = text.trim();
  if (/^\d+$/.test(s)) return inRange(text, Number(s));
  // Python's int() behind human_readable_int takes single underscores between digits: 32_768.
  if (/^\d+(?:_\d+)+$/.test(s)) return inRange(text, Number(s.replace(/_/g, "")));
  const m = /^(\d+(?:\.\d+)?)([kmgtKMGT])$/.exec(s);
  if (!m) {
    return {
      ok: false,
      message:
        `"${text}" is not a value vLLM accepts: use a plain integer, or a number with ` +
        `k/m/g/t (×1000) or an integer with K/M/G/T (×1024), e.g. 23622320128, 22G, 32K`,
    };
  }
  const num = Number(m[1]);
  if (!Number.isFinite(num)) return inRange(text, num);
  const suffix = m[2] as string;
  const decimal: Record<string, number> = { k: 1e3, m: 1e6, g: 1e9, t: 1e12 };
  const binary: Record<string, number> = { K: KiB, M: MiB, G: GiB, T: TiB };
  if (suffix in binary) {
    if (!Number.isInteger(num)) {
      return {
        ok: false,
        message:
          `"${text}": vLLM accepts binary suffixes (K/M/G/T) on integers only; write ` +
          `${Math.round(num * (binary[suffix] as number))} or use ${suffix.toLowerCase()}`,
      };
    }
    return inRange(text, num * (binary[suffix] as number));
  }
  return inRange(text, Math.floor(num * (decimal[suffix] as number)));
}

/** Token counts in env keys read by the gate: vLLM's forms, and a whole positive number. */
export function parseTokens(text: string): UnitResult {
  const r = parseVllmInt(text);
  if (!r.ok && /too large/.test(r.message)) return r;
  if (!r.ok) return { ok: false, message: `"${text}" is not a token count: use a whole number (40960) or vLLM's 32k / 32K` };
  if (r.value <= 0) return { ok: false, message: `"${text}": a token count must be positive` };
  return r;
}

/** A plain number in MiB (radiance keys); fractions allowed, negatives refused. */
export function parseMib(text: string): UnitResult {
  const s = text.trim();
  if (!/^\d+(\.\d+)?$/.test(s)) return { ok: false, message: `"${text}" is not a number of MiB: write a plain number like 44928` };
  return inRange(text, Number(s), false);
}

export function formatBytes(bytes: number): string {
  const abs = Math.abs(bytes);
  if (abs >= GiB) return `${trim(bytes / GiB)} GiB`;
  if (abs >= MiB) return `${trim(bytes / MiB)} MiB`;
  if (abs >= KiB) return `${trim(bytes / KiB)} KiB`;
  return `${bytes} B`;
}

function trim(n: number): string {
  return Number(n.toFixed(2)).toString();
}

/** 40960 → "40,960" */
export function formatInt(n: number): string {
  return formatNumber(n, 2);
}

/**
 * What `n.toLocaleString("en-US", { maximumFractionDigits })` prints (digits grouped by commas, the
 * fraction rounded half away from zero on the number's shortest decimal form, trailing zeros dropped),
 * without it: the first toLocaleString call of a process builds ICU's number formatter, about 8 ms of
 * every hook run that prints a number. Exponent forms (|n| ≥ 1e21 or < 1e-6), -0 and non-finite values,
 * which the fleet's figures never are, are left to ICU.
 */
export function formatNumber(n: number, maximumFractionDigits = 3): string {
  const text = String(Math.abs(n));
  if (!Number.isFinite(n) || Object.is(n, -0) || text.includes("e")) return n.toLocaleString("en-US", { maximumFractionDigits });
  const [whole = "0", fraction = ""] = text.split(".");
  let digits = whole + fraction.slice(0, maximumFractionDigits).padEnd(maximumFractionDigits, "0");
  if (fraction.length > maximumFractionDigits && (fraction[maximumFractionDigits] as string) >= "5") digits = addOne(digits);
  const cut = digits.length - maximumFractionDigits;
  const int = digits.slice(0, cut) || "0";
  const frac = digits.slice(cut).replace(/0+$/, "");
  const grouped = int.replace(/\B(?=(\d{3})+$)/g, ",");
  const sign = n < 0 ? "-" : "";
  return `${sign}${grouped}${frac ? `.${frac}` : ""}`;
}

/** A string of decimal digits plus one ("0999" → "1000"). */
function addOne(digits: string): string {
  const out = digits.split("");
  for (let i = out.length - 1; i >= 0; i--) {
    if (out[i] !== "9") {
      out[i] = String(Number(out[i]) + 1);
      return out.join("");
    }
    out[i] = "0";
  }
  return `1${out.join("")}`;
}
