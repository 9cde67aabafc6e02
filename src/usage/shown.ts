// The reports of `usage` and `observe` quote what their inputs hold: service and model names from spend
// logs (a model_group can be anything a client sent, a pasted token included), host labels from
// monitoring (a DCGM exporter's Hostname), request ids, file names, a row's bad value. Every string of a
// report passes the house's one masker (src/secrets/mask.ts: the secret detectors, key bodies, control
// characters as visible escapes) once, before any format renders it: text, JSON and SVG alike.
import { escapeControls } from "../secrets/shown.js";

export type ShownText = (s: string) => string;

/** A masker's document mode made single-line: a shown field never holds a raw newline either. */
export function lineMasker(text: (s: string) => string): ShownText {
  const seen = new Map<string, string>();
  return (s) => {
    let out = seen.get(s);
    if (out === undefined) {
      out = escapeControls(text(s));
      // Names repeat (one per service, host, file): each is scanned once.
      if (seen.size < 10_000) seen.set(s, out);
    }
    return out;
  };
}

/** A copy of `value` with every string in it (not the keys, which are the report's own) shown through `mask`. */
export function shownReport<T>(value: T, mask: ShownText): T {
  const walk = (v: unknown): unknown => {
    if (typeof v === "string") return mask(v);
    if (Array.isArray(v)) return v.map(walk);
    if (v !== null && typeof v === "object") {
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v)) out[k] = walk(x);
      return out;
    }
    return v;
  };
  return walk(value) as T;
}
