// The last line of defence for what is shown: any text about to be shown (a finding's message, data,
// reason, file and service; explain and audit output; an error message) is
//   - scanned with the same detectors, and every credential-shaped value that is not a listed
//     placeholder is replaced by its redacted form. A check that quotes a setting (`MODEL=<token>` in
//     engine/unknown-model, a flag value in engine/bad-value) can then never print a real secret,
//     whichever check it is;
//   - stripped of any piece of a key body: 8 characters of a secret found in the same unit, or a run
//     shaped like a key's base64 line (./shown.ts);
//   - escaped: control characters and escape sequences from file content become visible escapes.
import type { DetectorSet } from "../rules/detectors.js";
import type { Policy } from "../config/policy.js";
import type { Finding } from "../model/types.js";
import { numberLines, scanLines } from "./scan.js";
import { placeholderFilter } from "./placeholders.js";
import { scrubText } from "./redact.js";
import { escapeControls, escapeControlsInDocument, KeyWindows, maskKeyBodies } from "./shown.js";

export interface Masker {
  /** A shown document (explain's tables, an audit subject): newlines and tabs kept. */
  text(s: string): string;
  /** A finding as shown: `keys` holds the secrets found in the same unit, none of which may be quoted. */
  finding(f: Finding, keys?: KeyWindows): Finding;
  /** Whether a text holds what `text` would hide (a detector's match that is no placeholder, a key-shaped body). */
  holdsSecret(s: string): boolean;
}

const loose = new WeakMap<DetectorSet, DetectorSet>();

/**
 * The detectors without their format checks (shape, decoded header): what is shown hides a value
 * that starts like a key but fails its family's exact shape too (a cut or mistyped real key is still
 * one). Masking more than the gate reports costs nothing.
 */
function maskingDetectors(set: DetectorSet): DetectorSet {
  let out = loose.get(set);
  if (!out) {
    out = { ...set, detectors: set.detectors.map((d) => ({ ...d, shape: null, check: null })) };
    loose.set(set, out);
  }
  return out;
}

export function createMasker(set: DetectorSet, policy: Policy): Masker {
  const filter = placeholderFilter(set.placeholders, policy.secrets.placeholders);
  const masking = maskingDetectors(set);
  const secretsIn = (s: string): string[] =>
    scanLines(numberLines(s), masking)
      .map((m) => m.value)
      .filter((v) => filter.match(v) === null);
  const clean = (s: string, found: readonly string[], keys?: KeyWindows, byShape = true): string =>
    maskKeyBodies(found.length === 0 ? s : scrubText(s, found), keys, byShape);
  // Scanned before escaping (the detectors read the text as the file had it), escaped last.
  const line = (s: string, found: readonly string[], keys?: KeyWindows, byShape = true): string =>
    escapeControls(clean(s, found, keys, byShape));
  const data = (v: unknown, found: readonly string[], keys?: KeyWindows): unknown => {
    if (typeof v === "string") return line(v, found, keys);
    if (Array.isArray(v)) return v.map((x) => data(x, found, keys));
    if (v !== null && typeof v === "object") {
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v)) out[line(k, found, keys)] = data(x, found, keys);
      return out;
    }
    return v;
  };
  return {
    text(s) {
      return escapeControlsInDocument(clean(s, secretsIn(s)));
    },
    holdsSecret(s) {
      return secretsIn(s).length > 0 || maskKeyBodies(s) !== s;
    },
    finding(f, keys) {
      // One scan over every text of the finding (data as one JSON text, so a detector that needs a
      // key name next to the value still sees both); what it finds is scrubbed from each.
      const found = [f.message, f.reason ?? "", f.file ?? "", f.service ?? "", JSON.stringify(f.data)].flatMap(secretsIn);
      const out: Finding = {
        ...f,
        message: line(f.message, found, keys),
        file: f.file === null ? null : line(f.file, found, keys, false),
        service: f.service === null ? null : line(f.service, found, keys, false),
        data: data(f.data, found, keys) as Finding["data"],
      };
      if (f.reason !== undefined) out.reason = line(f.reason, found, keys);
      return out;
    },
  };
}
