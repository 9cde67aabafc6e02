// A pre-scan step for manifests: a Kubernetes Secret's `data` is base64, so the line scan sees only
// the encoding. The values decoded by src/kubernetes/secret-data.ts are scanned as text and reported
// at the manifest line they are written on (only lines the change adds; every line under --all). The
// decoded value is a finding's secret like any other: redacted, fingerprinted and matched against
// the placeholders as a value, never shown.
import type { ChangedFile } from "../git/types.js";
import type { DetectorSet } from "../rules/detectors.js";
import { secretValuesOf } from "../kubernetes/index.js";
import { numberLines, scanLines, type SecretMatch } from "./scan.js";

const MANIFEST = /\.(ya?ml|json)$/i;

export interface DecodedMatch extends SecretMatch {
  /** Where the value was decoded from: `data.<key>`, or a pull secret's `auths.<registry>.auth`. */
  decoded: string;
}

export function decodedMatches(file: Pick<ChangedFile, "path" | "after" | "addedLines">, set: DetectorSet): DecodedMatch[] {
  if (file.after === null || !MANIFEST.test(file.path)) return [];
  const values = secretValuesOf(file.path, file.after);
  if (values.length === 0) return [];
  const added = new Set(file.addedLines.map((l) => l.line));
  const out: DecodedMatch[] = [];
  for (const v of values) {
    let touched = false;
    for (let l = v.lines[0]; l <= v.lines[1] && !touched; l++) touched = added.has(l);
    if (!touched) continue;
    for (const m of scanLines(numberLines(v.text), set)) out.push({ ...m, line: v.line, column: v.column, decoded: v.where });
  }
  return out;
}
