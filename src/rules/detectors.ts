// rules/secrets.yaml: the secret detectors and the built-in placeholders, validated with zod and
// compiled once (regexes, charset tables), so the hook's per-line work is a keyword lookup.
import * as z from "zod";
import type { Severity } from "./severity.js";
import { rulesData, validateYamlText } from "./data.js";

const regexSource = z.string().min(1).refine((s) => {
  try {
    new RegExp(s);
    return true;
  } catch {
    return false;
  }
}, "not a valid regular expression");

export const DetectorSpec = z.strictObject({
  id: z.string().regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, "lowercase words joined by -"),
  title: z.string().min(1),
  severity: z.enum(["error", "warning", "notice"]),
  keywords: z.array(z.string().min(1).refine((k) => k === k.toLowerCase(), "keywords are lowercase")).min(1),
  regex: regexSource,
  flags: z.enum(["i"]).optional(),
  charset: z.string().min(1),
  shape: regexSource.optional(),
  min_length: z.number().int().positive().optional(),
  entropy: z.number().positive().optional(),
  ignore: z.array(regexSource).optional(),
  block_end: z.string().min(1).optional(),
  generic: z.boolean().optional(),
});
export type DetectorSpec = z.infer<typeof DetectorSpec>;

export const SecretsFile = z.strictObject({
  detectors: z.array(DetectorSpec).min(1),
  references: z.strictObject({
    enclosures: z.array(z.tuple([z.string().min(1), z.string().min(1)])),
    prefixes: z.array(z.string().min(1)),
  }),
  placeholders: z.strictObject({
    values: z.array(z.string().min(1)),
    patterns: z.array(regexSource),
  }),
});
export type SecretsFile = z.infer<typeof SecretsFile>;

export interface Detector {
  id: string;
  /** `secret/<id>`. */
  rule: string;
  title: string;
  severity: Severity;
  keywords: string[];
  /** Global, with indices (`d`), so `lastIndex` drives the scan and the `value` group has a span. */
  regex: RegExp;
  /** ASCII lookup: 1 where the character belongs to the value's character set. */
  charset: Uint8Array;
  shape: RegExp | null;
  minLength: number;
  entropy: number | null;
  ignore: RegExp[];
  blockEnd: string | null;
  generic: boolean;
}

export interface DetectorSet {
  detectors: Detector[];
  references: { enclosures: [string, string][]; prefixes: string[] };
  /** Built-in placeholders of rules/secrets.yaml (kvgate.yaml's are in the policy). */
  placeholders: { values: string[]; patterns: string[] };
}

function charsetTable(body: string, file: string, id: string): Uint8Array {
  let cls: RegExp;
  try {
    cls = new RegExp(`^[${body}]$`);
  } catch {
    throw new Error(`${file}: detector ${id}: charset [${body}] is not a character class`);
  }
  const table = new Uint8Array(128);
  for (let c = 0; c < 128; c++) table[c] = cls.test(String.fromCharCode(c)) ? 1 : 0;
  return table;
}

function compile(spec: DetectorSpec, file: string): Detector {
  return {
    id: spec.id,
    rule: `secret/${spec.id}`,
    title: spec.title,
    severity: spec.severity,
    keywords: spec.keywords,
    regex: new RegExp(spec.regex, `gd${spec.flags ?? ""}`),
    charset: charsetTable(spec.charset, file, spec.id),
    shape: spec.shape ? new RegExp(spec.shape) : null,
    minLength: spec.min_length ?? 1,
    entropy: spec.entropy ?? null,
    ignore: (spec.ignore ?? []).map((s) => new RegExp(s)),
    blockEnd: spec.block_end ?? null,
    generic: spec.generic ?? false,
  };
}

/** Parse and compile a secrets file; a broken one throws with every problem and its line. */
export function loadDetectors(text: string, file: string): DetectorSet {
  return detectorSetOf(validateYamlText(SecretsFile, text, file), file);
}

/** Compiles validated rules/secrets.yaml data once: regexes, charset tables. */
export function detectorSetOf(data: z.infer<typeof SecretsFile>, file: string): DetectorSet {
  const ids = new Set<string>();
  for (const d of data.detectors) {
    if (ids.has(d.id)) throw new Error(`${file}: detector id ${d.id} is listed twice`);
    ids.add(d.id);
  }
  return {
    detectors: data.detectors.map((d) => compile(d, file)),
    references: { enclosures: data.references.enclosures, prefixes: data.references.prefixes },
    placeholders: { values: data.placeholders.values, patterns: data.placeholders.patterns },
  };
}

let builtin: DetectorSet | null = null;

/** The package's own rules/secrets.yaml, loaded once (the rule list is computed from it at import). */
export function builtinDetectors(): DetectorSet {
  if (!builtin) {
    builtin = detectorSetOf(rulesData(SecretsFile, "secrets.yaml"), "rules/secrets.yaml");
  }
  return builtin;
}
