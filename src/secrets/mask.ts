// The last line of defence for redaction: any text about to be shown (a finding's message, data and
// reason; explain and audit output) is scanned with the same detectors, and every credential-shaped
// value that is not a listed placeholder is replaced by its redacted form. A check that quotes a
// setting (`MODEL=<token>` in engine/unknown-model, a flag value in engine/bad-value) can then never
// print a real secret, whichever check it is.
import type { DetectorSet } from "../rules/detectors.js";
import type { Policy } from "../config/policy.js";
import type { Finding } from "../model/types.js";
import { numberLines, scanLines } from "./scan.js";
import { placeholderFilter } from "./placeholders.js";
import { scrubData, scrubText } from "./redact.js";

export interface Masker {
  text(s: string): string;
  finding(f: Finding): Finding;
}

export function createMasker(set: DetectorSet, policy: Policy): Masker {
  const filter = placeholderFilter(set.placeholders, policy.secrets.placeholders);
  const secretsIn = (s: string): string[] =>
    scanLines(numberLines(s), set)
      .map((m) => m.value)
      .filter((v) => filter.match(v) === null);
  return {
    text(s) {
      const found = secretsIn(s);
      return found.length === 0 ? s : scrubText(s, found);
    },
    finding(f) {
      const found = [...secretsIn(f.message), ...secretsIn(f.reason ?? ""), ...secretsIn(JSON.stringify(f.data))];
      if (found.length === 0) return f;
      const out: Finding = { ...f, message: scrubText(f.message, found), data: scrubData(f.data, found) };
      if (f.reason !== undefined) out.reason = scrubText(f.reason, found);
      return out;
    },
  };
}
