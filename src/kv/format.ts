// Number spellings shared by the KV messages and tables: the contract writes "7.5 GiB", "144 KiB",
// "40,960 tokens"; env values are written as plain bytes with the GiB figure beside them.
import { GiB, KiB, MiB, formatInt } from "../units/bytes.js";

function trim(n: number): string {
  return Number(n.toFixed(2)).toString();
}

/** Sizes as people read card memory: GiB from a quarter GiB up (so 0.5 GiB stays 0.5 GiB). */
export function size(bytes: number): string {
  const abs = Math.abs(bytes);
  if (abs >= GiB / 4) return `${trim(bytes / GiB)} GiB`;
  if (abs >= MiB) return `${trim(bytes / MiB)} MiB`;
  if (abs >= KiB) return `${trim(bytes / KiB)} KiB`;
  return `${bytes} B`;
}

/** `8053063680` → `7.5GiB`, the compact form beside a byte value to set. */
export function compact(bytes: number): string {
  return size(bytes).replace(" ", "");
}

export { formatInt };
