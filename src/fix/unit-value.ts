// The value a key takes, converted from what the file wrote in another unit: `--kv-cache-memory-bytes
// 22GiB` (vLLM refuses IEC units at boot) is 23622320128 bytes; `--max-model-len 25.6K` (binary
// suffixes take integers only) is 26214 tokens. Only a conversion the key then reads back is offered.
import type { SettingSpec } from "../rules/engines.js";
import { MiB, parseBytes } from "../units/bytes.js";
import { readValue } from "../model/settings.js";

/** The value in the unit the setting takes, or null when the text is not a quantity the gate can convert. */
export function convertedValue(spec: SettingSpec, raw: string, asFlag: boolean): string | null {
  const q = parseBytes(raw);
  if (!q.ok || q.value <= 0) return null;
  let value: number;
  switch (spec.unit) {
    case "bytes":
    case "tokens":
      value = q.value;
      break;
    case "mib":
      // `44GiB` for a MiB key: 45056.
      value = q.value / MiB;
      break;
    default:
      return null;
  }
  const text = String(value);
  if (text === raw.trim()) return null;
  const back = readValue(spec, text, asFlag);
  return back.ok ? text : null;
}
