// The radiance ledger facts file (docs/radiance.md): the numbers a boot ledger printed, which the
// funding formula needs and the env file cannot say. Validated with zod; every problem is reported at
// once with its line, so a hand-copied ledger is fixed in one pass.
import * as z from "zod";
import { LineCounter, isNode, parseDocument, type Document } from "yaml";
import { valueText } from "../units/text.js";
import { yamlOverLimits } from "../config/yaml-limits.js";

/** 2^53 bytes in MiB: past it the funding arithmetic loses whole bytes, and 1e308 turns into Infinity. */
const MAX_MIB = Number.MAX_SAFE_INTEGER / 2 ** 20;
const tooBig = { message: `too large: a MiB figure must be at most ${Math.floor(MAX_MIB)} (2^53 bytes); copy the ledger's number` };
const mib = (what: string) => z.number().nonnegative().max(MAX_MIB, tooBig).describe(`MiB: ${what}`);

const LedgerCard = z.strictObject({
  index: z.number().int().nonnegative().describe("the card's index (the ledger's [0], [1] pools: lines)"),
  card_total_mib: z.number().positive().max(MAX_MIB, tooBig).describe("MiB: the card's total (`card total`)"),
  already_held_mib: mib("memory already held on the card before radiance allocates"),
  drift_mib: mib("the driver drift the ledger reserves"),
  arena_mib: mib("the activation arena"),
  step_staging_mib: mib("the step staging buffers"),
  hw_queues_mib: mib("the hardware queues"),
  prefetch_mib: mib("the prefetch buffers"),
  static_weights_mib: mib("the static (non-expert) weights on this card"),
});

const LedgerFactsSchema = z.strictObject({
  cards: z.array(LedgerCard).min(1).describe("one entry per card of the endpoint"),
  plane_mib: mib("the expert plane"),
  spare_mib: mib("the expert spare"),
  unit_max_mib: mib("the largest expert unit"),
  kv_bytes_per_token: z.number().int().positive().describe("bytes: KV bytes per token per card (cache_given_bytes / tokens)"),
  block_size: z.number().int().positive().describe("tokens per paged KV block"),
  file_tier_staging_mib: mib("the file tier's staging; 0 unless disk tiering is on").default(0),
  /** Free text: where the numbers were read (boot date, ledger excerpt). */
  source: z.string().optional().describe("where the numbers were read (free text)"),
});

export type LedgerFacts = z.infer<typeof LedgerFactsSchema>;

export interface LedgerProblem {
  /** 1-based line in the facts file (the nearest enclosing node when the field is missing). */
  line: number;
  /** The field, e.g. `cards[0].drift_mib`; empty for a whole-file problem. */
  path: string;
  /** What is wrong and what to write instead; without the file name (findings carry it). */
  message: string;
}

export type ParseLedger = { ok: true; facts: LedgerFacts } | { ok: false; problems: LedgerProblem[] };

/** What the fleet loader stores in `FleetState.ledgerFacts[service]`: the parse result and the file it came from. */
export type LedgerEntry = ParseLedger & { file: string };

/** `file:line: message`, for places that print a problem outside a finding. */
export function formatLedgerProblem(file: string, p: LedgerProblem): string {
  return `${file}:${p.line}: ${p.message}`;
}

/** The facts file of a service: `policy.ledgers` with `{service}` replaced. */
export function ledgerPathOf(pattern: string, service: string): string {
  return pattern.split("{service}").join(service);
}

export function parseLedgerFacts(text: string, file: string): ParseLedger {
  void file; // kept in the signature so callers read like parseEnv; messages leave the file to findings
  const lineCounter = new LineCounter();
  const over = yamlOverLimits(text);
  if (over)
    return {
      ok: false,
      problems: [{ line: over.line, path: "", message: `${over.message}: a ledger facts file is a few lines; write the ledger's numbers` }],
    };
  const doc = parseDocument(text.replace(/^\uFEFF/, ""), { lineCounter, prettyErrors: false, uniqueKeys: true });
  if (doc.errors.length > 0) {
    // Very deep nesting makes the parser overflow its stack, then report every open bracket: once.
    const overflow = doc.errors.find((e) => /call stack/i.test(e.message));
    if (overflow)
      return {
        ok: false,
        problems: [
          {
            line: overflow.pos?.[0] === undefined ? 1 : lineCounter.linePos(overflow.pos[0]).line,
            path: "",
            message: "nested too deeply for a YAML parser: a ledger facts file is a few flat keys and a list of cards",
          },
        ],
      };
    return {
      ok: false,
      problems: doc.errors.map((e) => ({
        line: e.pos?.[0] === undefined ? 1 : lineCounter.linePos(e.pos[0]).line,
        path: "",
        message: `not valid YAML: ${e.message.split("\n")[0]}`,
      })),
    };
  }
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: 100 });
  } catch (e) {
    return { ok: false, problems: [{ line: 1, path: "", message: `not valid YAML: ${(e as Error).message}` }] };
  }
  if (value === null || value === undefined) {
    return {
      ok: false,
      problems: [{ line: 1, path: "", message: `the ledger facts file is empty: write ${requiredKeys()} from the last boot ledger` }],
    };
  }
  const parsed = LedgerFactsSchema.safeParse(value);
  const problems: LedgerProblem[] = [];
  if (!parsed.success) {
    for (const issue of parsed.error.issues) problems.push(problemOf(issue, value, doc, lineCounter));
  } else {
    const seen = new Map<number, number>();
    parsed.data.cards.forEach((c, i) => {
      const first = seen.get(c.index);
      if (first !== undefined) {
        problems.push({
          line: lineAt(doc, lineCounter, ["cards", i, "index"]),
          path: `cards[${i}].index`,
          message: `card index ${c.index} is listed twice (cards[${first}] and cards[${i}]): one entry per card`,
        });
      } else seen.set(c.index, i);
    });
  }
  problems.sort((a, b) => a.line - b.line);
  return problems.length > 0 ? { ok: false, problems } : { ok: true, facts: (parsed as { data: LedgerFacts }).data };
}

/** The parse result with its file, ready for `FleetState.ledgerFacts[service]`. */
export function ledgerEntryOf(text: string, file: string): LedgerEntry {
  return { ...parseLedgerFacts(text, file), file };
}

function requiredKeys(): string {
  return Object.entries(LedgerFactsSchema.shape)
    .filter(([, s]) => !s.safeParse(undefined).success)
    .map(([k]) => k)
    .join(", ");
}

function pathText(path: readonly PropertyKey[]): string {
  let out = "";
  for (const p of path) out += typeof p === "number" ? `[${p}]` : out === "" ? String(p) : `.${String(p)}`;
  return out;
}

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let v = root;
  for (const p of path) {
    if (typeof v !== "object" || v === null) return undefined;
    v = (v as Record<PropertyKey, unknown>)[p];
  }
  return v;
}

function lineAt(doc: Document, lc: LineCounter, path: readonly PropertyKey[]): number {
  for (let n = path.length; n >= 0; n--) {
    const node = doc.getIn(path.slice(0, n) as unknown[], true);
    if (isNode(node) && node.range) return lc.linePos(node.range[0]).line;
  }
  return 1;
}

function describeField(path: readonly PropertyKey[]): string {
  const key = path[path.length - 1];
  const inCard = path[0] === "cards" && path.length === 3;
  const shape = (inCard ? LedgerCard.shape : LedgerFactsSchema.shape) as Record<string, z.ZodType>;
  const field = typeof key === "string" ? shape[key] : undefined;
  return field?.description ? ` (${field.description})` : "";
}

function shown(v: unknown): string {
  if (v === undefined) return "nothing";
  if (v === null) return "an empty value";
  if (typeof v === "string") return `"${v.length > 40 ? v.slice(0, 40) + "…" : v}"`;
  if (Array.isArray(v)) return "a list";
  if (typeof v === "object") return "a mapping";
  return valueText(v);
}

function problemOf(issue: z.core.$ZodIssue, root: unknown, doc: Document, lc: LineCounter): LedgerProblem {
  const path = issue.path;
  const where = pathText(path) || "(top level)";
  const line = lineAt(doc, lc, path);
  const got = valueAt(root, path);
  switch (issue.code) {
    case "unrecognized_keys": {
      const known = Object.keys(path[0] === "cards" ? LedgerCard.shape : LedgerFactsSchema.shape).join(", ");
      const keyLine = lineAt(doc, lc, [...path, issue.keys[0] as string]);
      return {
        line: keyLine,
        path: where,
        message: `${where}: unknown key${issue.keys.length > 1 ? "s" : ""} ${issue.keys.map((k) => `"${k}"`).join(", ")} (known: ${known})`,
      };
    }
    case "invalid_type":
      if (got === undefined) return { line, path: where, message: `${where} is missing${describeField(path)}: add it` };
      return { line, path: where, message: `${where} must be ${expectedText(issue.expected)}${describeField(path)}, got ${shown(got)}` };
    case "too_small":
      if (Array.isArray(got)) return { line, path: where, message: `${where} is empty: list one entry per card of the endpoint` };
      return {
        line,
        path: where,
        message: `${where} must be ${issue.minimum === 0 && issue.inclusive ? "0 or more" : "more than 0"}${describeField(path)}, got ${shown(got)}`,
      };
    case "invalid_format":
    case "not_multiple_of":
    case "too_big":
    case "invalid_union":
    case "invalid_key":
    case "invalid_element":
    case "invalid_value":
    case "custom":
      return { line, path: where, message: `${where}: ${issue.code === "custom" ? issue.message : integerHint(issue, got)}` };
    default:
      return issue satisfies never;
  }
}

function expectedText(expected: string): string {
  if (expected === "number") return "a number";
  if (expected === "int") return "a whole number";
  if (expected === "array") return "a list of cards";
  if (expected === "object") return "a mapping of keys";
  return `a ${expected}`;
}

function integerHint(issue: z.core.$ZodIssue, got: unknown): string {
  if (typeof got === "number" && !Number.isInteger(got)) return `must be a whole number, got ${got}`;
  return `${issue.message}, got ${shown(got)}`;
}
