// rules/secrets.yaml: the secret detectors and the built-in placeholders, validated with zod and
// compiled once (regexes, charset tables), so the hook's per-line work is a keyword lookup.
import * as z from "zod";
import type { Severity } from "./severity.js";
import { rulesData, validateYamlText } from "./data.js";
import { compiledSource } from "./detector-source.js";

/** The shortest keyword: two characters (`sk`, `q~`) pass a fifth of the lines of real code. */
const MIN_KEYWORD = 3;

/**
 * A gate is swept over raw bytes read as latin1 as well as over decoded text (src/secrets/prefilter.ts):
 * it must match the same places in both, so it names only ASCII characters, positively.
 */
function plainAscii(source: string): boolean {
  let inClass = false;
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (c === "\\") {
      if ("sSwWdDbBpP".includes(source[i + 1] ?? "")) return false;
      i++;
    } else if (c === "[" && !inClass) {
      if (source[i + 1] === "^") return false;
      inClass = true;
    } else if (c === "]") inClass = false;
    else if (c === "." && !inClass) return false;
    else if (source.charCodeAt(i) > 0x7e) return false;
  }
  return true;
}

const regexSource = z
  .string()
  .min(1)
  .refine((s) => {
    try {
      new RegExp(s);
      return true;
    } catch {
      return false;
    }
  }, "not a valid regular expression");

const DetectorSpec = z.strictObject({
  id: z.string().regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, "lowercase words joined by -"),
  title: z.string().min(1),
  severity: z.enum(["error", "warning", "notice"]),
  keywords: z
    .array(
      z
        .string()
        .min(MIN_KEYWORD, `a keyword has ${MIN_KEYWORD} characters or more (a shorter one passes most lines: name a gate instead)`)
        .refine((k) => k === k.toLowerCase(), "keywords are lowercase")
        .refine((k) => /^[\x20-\x7e]+$/.test(k), "keywords are printable ASCII"),
    )
    .min(1)
    .optional(),
  gate: regexSource.refine(plainAscii, "a gate matches ASCII only: no \\s, \\w, \\d, \\b, negated class or . outside a class").optional(),
  assignment: regexSource.optional(),
  regex: regexSource,
  flags: z.enum(["i"]).optional(),
  charset: z.string().min(1),
  left_boundary: z.boolean().optional(),
  shape: regexSource.optional(),
  min_length: z.number().int().positive().optional(),
  max_length: z.number().int().positive().optional(),
  entropy: z.number().positive().optional(),
  ignore: z.array(regexSource).optional(),
  word_ignore: z.array(regexSource).optional(),
  check: z.enum(["jwt"]).optional(),
  name_ignore: z.array(regexSource).optional(),
  file_context: z
    .array(
      z
        .string()
        .min(1)
        .refine((k) => k === k.toLowerCase(), "file_context entries are lowercase"),
    )
    .min(1)
    .optional(),
  block_end: z.string().min(1).optional(),
  generic: z.boolean().optional(),
});
type DetectorSpec = z.infer<typeof DetectorSpec>;

/** `{NAME}` in a detector's regex or assignment gate: the fragment NAME's source (fragments are upper-case names). */
const FRAGMENT = /\{([A-Z][A-Z0-9_]*)\}/g;

/** The fields of a detector that may name fragments. */
const SPLICED = ["regex", "assignment"] as const;

/**
 * The file with every detector's fragments spliced in, so what the bundles embed (and the fast path
 * compiles) is the regex the scan runs, and the generic detector's assignment gate reads the same
 * separators ({ASSIGN}) as its regex. Expanding expanded data changes nothing.
 */
function spliceFragments(file: z.infer<typeof SecretsFileShape>, ctx: z.RefinementCtx): z.infer<typeof SecretsFileShape> {
  // A fragment may name the fragments above it (SECRET_GIVEN names SECRET_WORD and ASSIGN).
  const fragments: Record<string, string> = {};
  for (const [name, source] of Object.entries(file.fragments ?? {})) {
    fragments[name] = source.replace(FRAGMENT, (whole, inner: string) => {
      const f = fragments[inner];
      if (f === undefined) {
        ctx.addIssue({
          code: "custom",
          path: ["fragments", name],
          message: `names fragment {${inner}}, which no fragment above it defines`,
        });
        return whole;
      }
      return f;
    });
  }
  const detectors = file.detectors.map((d, k) => {
    const out = { ...d };
    for (const field of SPLICED) {
      const source = d[field];
      if (source === undefined) continue;
      const spliced = source.replace(FRAGMENT, (whole, name: string) => {
        const f = fragments[name];
        if (f === undefined) {
          ctx.addIssue({
            code: "custom",
            path: ["detectors", k, field],
            message: `names fragment {${name}}, which fragments does not define`,
          });
          return whole;
        }
        return f;
      });
      try {
        new RegExp(spliced);
      } catch {
        ctx.addIssue({
          code: "custom",
          path: ["detectors", k, field],
          message: "is not a valid regular expression once its fragments are spliced in",
        });
      }
      out[field] = spliced;
    }
    return out;
  });
  return { ...file, detectors };
}

/** Every detector names keywords or a gate (src/secrets/prefilter.ts): without one it would run on every line. */
const DetectorEntry = DetectorSpec.refine((d) => (d.keywords !== undefined) !== (d.gate !== undefined), {
  message: "a detector names keywords or, where no keyword fits, a gate (one of them, not both)",
}).refine((d) => d.assignment === undefined || (d.keywords?.length ?? 0) > 0, { message: "assignment needs keywords" });

const SecretsFileShape = z.strictObject({
  /** Named regex sources detectors share, spliced in where a regex says `{NAME}`. */
  fragments: z.record(z.string().regex(/^[A-Z][A-Z0-9_]*$/), z.string().min(1)).optional(),
  detectors: z.array(DetectorEntry).min(1),
  references: z.strictObject({
    prefixes: z.array(z.string().min(1)),
    lookups: z.array(z.string().regex(/^[a-z_]+$/)),
  }),
  placeholders: z.strictObject({
    values: z.array(z.string().min(1)),
    patterns: z.array(regexSource),
    jwt_signing_keys: z.array(z.string().min(1)).optional(),
  }),
});

export const SecretsFile = SecretsFileShape.transform(spliceFragments);

export interface Detector {
  id: string;
  /** `secret/<id>`. */
  rule: string;
  title: string;
  severity: Severity;
  /** Lowercase, 3+ characters; empty when the detector has a gate instead (src/secrets/prefilter.ts). */
  keywords: string[];
  /** An ASCII regex source every match holds, for a detector without keywords. */
  gate: string | null;
  /**
   * The generic detector's gate: a regex source tried where each keyword starts (sticky, with the
   * detector's flags); the detector runs on a line only where it matches there (src/secrets/prefilter.ts).
   */
  assignment: string | null;
  /** Global, with indices (`d`), so `lastIndex` drives the scan and the `value` group has a span. */
  regex: RegExp;
  /** ASCII lookup: 1 where the character belongs to the value's character set. */
  charset: Uint8Array;
  shape: RegExp | null;
  minLength: number;
  /** A run of the charset longer than this is not a token of this family (a fixed-length format glued to more text). */
  maxLength: number;
  entropy: number | null;
  ignore: RegExp[];
  /** Values made of words: skipped unless their letters read as random (src/secrets/words.ts). */
  wordIgnore: RegExp[];
  /** A decoding check of the whole value (`jwt`: its header must decode to JSON naming an alg). */
  check: "jwt" | null;
  /** Tested on the whole lowercased key name before a generic value (`max_new_tokens`, `tokenizer`). */
  nameIgnore: RegExp[];
  /** The detector runs on a file only when one of its scanned lines holds one of these (lowercase). */
  fileContext: string[] | null;
  blockEnd: string | null;
  generic: boolean;
}

export interface DetectorSet {
  detectors: Detector[];
  /** `vault:`-style prefixes; Jinja calls whose string arguments name a vault path, not a value. */
  references: { prefixes: string[]; lookups: string[] };
  /** Built-in placeholders of rules/secrets.yaml (kvgate.yaml's are in the policy). */
  placeholders: { values: string[]; patterns: string[]; jwtSigningKeys: string[] };
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

/** Longest value any detector reports: longer runs are data blobs, not keys. */
const MAX_VALUE_LENGTH = 4096;

function compile(spec: DetectorSpec, file: string): Detector {
  return {
    id: spec.id,
    rule: `secret/${spec.id}`,
    title: spec.title,
    severity: spec.severity,
    keywords: spec.keywords ?? [],
    gate: spec.gate ?? null,
    assignment: spec.assignment ?? null,
    regex: new RegExp(compiledSource(spec), `gd${spec.flags ?? ""}`),
    charset: charsetTable(spec.charset, file, spec.id),
    shape: spec.shape ? new RegExp(spec.shape) : null,
    minLength: spec.min_length ?? 1,
    maxLength: spec.max_length ?? MAX_VALUE_LENGTH,
    entropy: spec.entropy ?? null,
    ignore: (spec.ignore ?? []).map((s) => new RegExp(s)),
    wordIgnore: (spec.word_ignore ?? []).map((s) => new RegExp(s)),
    check: spec.check ?? null,
    nameIgnore: (spec.name_ignore ?? []).map((s) => new RegExp(s)),
    fileContext: spec.file_context ?? null,
    blockEnd: spec.block_end ?? null,
    generic: spec.generic ?? false,
  };
}

/** Parse and compile a secrets file; a broken one throws with every problem and its line. */
export function loadDetectors(text: string, file: string): DetectorSet {
  return detectorSetOf(validateYamlText(SecretsFile, text, file), file);
}

/** Compiles validated rules/secrets.yaml data once: regexes, charset tables. */
function detectorSetOf(data: z.infer<typeof SecretsFile>, file: string): DetectorSet {
  const ids = new Set<string>();
  for (const d of data.detectors) {
    if (ids.has(d.id)) throw new Error(`${file}: detector id ${d.id} is listed twice`);
    ids.add(d.id);
  }
  return {
    detectors: data.detectors.map((d) => compile(d, file)),
    references: { prefixes: data.references.prefixes, lookups: data.references.lookups },
    placeholders: {
      values: data.placeholders.values,
      patterns: data.placeholders.patterns,
      jwtSigningKeys: data.placeholders.jwt_signing_keys ?? [],
    },
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
