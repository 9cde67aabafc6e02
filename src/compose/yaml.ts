// A compose file's YAML as docker compose loads it: each document a tree of CNodes (every value with
// its line, every scalar interpolated, anchors, aliases and merge keys followed, `!reset` and
// `!override` kept), or the reason compose refuses it. Parsing is js-yaml's event parser, which keeps
// no tree of its own: the tree is built here straight from its events, so a big file costs one pass.
//
// What compose refuses, with its own words (compose-go v2.14, the loader docker compose 2.40 uses):
// - a key written twice in a mapping (loader/reset.go resolveContainer: `mapping key "x" already
//   defined at line N`); a key that is not a string (loader/loader.go formatInvalidKeyError);
// - more than 100,000 nodes in a document (loader/reset.go defaultMaxNodeVisits, since v2.11.0; an
//   alias counts once, as its resolution is cached there);
// - aliases that expand past go-yaml's ratio (decode.go allowedAliasRatio: `document contains
//   excessive aliasing`): an alias bomb;
// - an alias to an anchor not defined before it (go-yaml: `unknown anchor 'x' referenced`).
// kvgate adds its own two: nesting past 100 levels, and more than 1,000 non-empty documents.
import { parseEvents, getScalarValue, YAMLException, type Event } from "js-yaml";
import { interpolate, type Lookup } from "./interpolate.js";
import { SourceText } from "./source.js";
import type { CEntry, CNode, Pos, ScalarType, TreeProblem } from "./tree.js";
import { chunksOf, WHOLE_UP_TO } from "./yaml-chunks.js";

/** compose-go loader/reset.go defaultMaxNodeVisits. */
const MAX_NODE_VISITS = 100_000;
const MAX_DEPTH = 100;
const MAX_DOCUMENTS = 1_000;

export interface ComposeYaml {
  /** The non-empty documents, in order (compose merges them as layers: loader.go loadYamlFile). */
  docs: CNode[];
  /** Set when compose refuses the file: the first reason, at its line. No document is then read. */
  refused: TreeProblem | null;
  /** Interpolation that compose refuses (an invalid `${`): reported, and the file is refused too. */
  problems: TreeProblem[];
}

class Refusal extends Error {
  constructor(
    readonly line: number,
    message: string,
  ) {
    super(message);
  }
}

const EV = { DOCUMENT: 1, SEQUENCE: 2, MAPPING: 3, SCALAR: 4, ALIAS: 5, POP: 6 } as const;

/** The keys whose values are shell words (or `KEY=value` items) that need each word's line. */
const WORDS = new Set(["command", "entrypoint", "environment"]);

/** Reads a compose file's YAML into trees, interpolating each value with `lookup`. */
export function readComposeYaml(path: string, text: string, lookup: Lookup): ComposeYaml {
  const src = new SourceText(path, text);
  const whole: Batch = { text, offset: 0, strip: 0, open: [], close: 0, partial: false };
  try {
    // A big file is counted first, a piece at a time and holding nothing: one compose refuses (past
    // its node limit) is refused before any tree is built. The node limit bounds what is then built.
    const none: ComposeYaml = { docs: [], refused: null, problems: [] };
    if (text.length > WHOLE_UP_TO && !countPieces(src)) return readBatches(src, lookup, [whole]) ?? none;
    // A piece that does not parse alone: the whole file is parsed, so an error is the file's own.
    return readBatches(src, lookup, chunksOf(text)) ?? readBatches(src, lookup, [whole]) ?? none;
  } catch (e) {
    if (e instanceof Refusal) return { docs: [], refused: { line: e.line, message: e.message }, problems: [] };
    throw e;
  }
}

/** Counts a big file's nodes piece by piece (throws compose's refusal); false when a piece does not parse alone. */
function countPieces(src: SourceText): boolean {
  const count = nodeCounter(src);
  for (const batch of chunksOf(src.text)) {
    let events: Event[];
    try {
      events = parseEvents(batch.text, { maxDepth: MAX_DEPTH + 20 });
    } catch (e) {
      if (e instanceof YAMLException) return false;
      throw e;
    }
    count(events, batch);
  }
  return true;
}

/** Parses the batches and builds the trees, one batch's events at a time. Null when a piece does not parse alone. */
function readBatches(src: SourceText, lookup: Lookup, batches: Iterable<Batch>): ComposeYaml | null {
  const b = new Builder(src, lookup);
  for (const batch of batches) {
    let events: Event[];
    try {
      events = parseEvents(batch.text, { maxDepth: MAX_DEPTH + 20 });
    } catch (e) {
      if (!(e instanceof YAMLException)) throw e;
      if (batch.partial) return null;
      throw yamlError(src, e, batch.offset);
    }
    b.feed(events, batch);
  }
  b.finish();
  return { docs: b.docs, refused: null, problems: b.problems };
}

/**
 * Counts nodes as the builder does (each list item and mapping value, per document) from events
 * alone, batch after batch; throws compose's refusal at the node past the limit.
 */
function nodeCounter(src: SourceText): (events: readonly Event[], batch: Batch) => void {
  // Per open collection: for a mapping, whether its next node is a key; whether it is itself a key.
  const stack: { map: boolean; expectKey: boolean; isKey: boolean }[] = [];
  let visits = 0;
  let last = 0;
  const value = (at: number): void => {
    if (++visits > MAX_NODE_VISITS) throw nodeLimit(src, src.lineAt(at));
  };
  const feed = (e: Event, off: number): void => {
    const top = stack[stack.length - 1];
    const isKey = top !== undefined && top.map && top.expectKey;
    switch (e.type) {
      case EV.DOCUMENT:
        visits = 0;
        stack.length = 0;
        return;
      case EV.MAPPING:
      case EV.SEQUENCE:
        last = e.start + off;
        if (!isKey) value(last);
        stack.push({ map: e.type === EV.MAPPING, expectKey: true, isKey });
        return;
      case EV.SCALAR:
      case EV.ALIAS: {
        const at = e.type === EV.SCALAR ? e.valueStart : e.anchorStart;
        if (at >= 0) last = at + off;
        if (top?.map) top.expectKey = !top.expectKey;
        if (!isKey) value(last);
        return;
      }
      case EV.POP: {
        const done = stack.pop();
        const parent = stack[stack.length - 1];
        if (done && parent?.map) parent.expectKey = !done.isKey;
        return;
      }
      default:
        return;
    }
  };
  return (events, batch) => {
    for (const e of batch.open) feed(e, 0);
    for (let i = batch.strip; i < events.length - batch.strip; i++) feed(events[i] as Event, batch.offset);
    for (let i = 0; i < batch.close; i++) feed({ type: EV.POP }, 0);
  };
}

function nodeLimit(src: SourceText, line: number): Refusal {
  return new Refusal(
    line,
    `${src.path} holds more than ${MAX_NODE_VISITS.toLocaleString("en-US")} YAML ` +
      `nodes in one document; docker compose refuses it ("compose file exceeds maximum ` +
      `node visit limit (${MAX_NODE_VISITS})"): split it into files joined by include`,
  );
}

function yamlError(src: SourceText, e: YAMLException, offset: number): Refusal {
  const at = e.mark ? offset + e.mark.position : offset;
  const reason = /maxDepth/.test(e.reason) ? `nested more than ${MAX_DEPTH} levels deep; flatten it (kvgate does not read it)` : e.reason;
  return new Refusal(src.lineAt(Math.min(at, Math.max(0, src.text.length - 1))), `${src.path} is not valid YAML: ${reason}`);
}

/** A batch of events to feed: a chunk's own events after `strip` wrapper events, with `open` events
 *  made up before them and `close` POPs after (see yaml-chunks.ts). */
export interface Batch {
  text: string;
  offset: number;
  /** Leading events of the chunk's own parse to skip (its DOCUMENT and root MAPPING). */
  strip: number;
  /** Events to feed first, with offsets already in the whole file. */
  open: Event[];
  /** POPs to feed after the chunk's events. */
  close: number;
  /** True when the chunk is part of a document: a parse error re-reads the whole file. */
  partial: boolean;
}

type Frame =
  | {
      kind: "map";
      pos: Pos;
      anchor: string | null;
      tag: string | null;
      entries: Map<string, CEntry>;
      key: PendingKey | null;
      merges: CNode[];
    }
  | { kind: "seq"; pos: Pos; anchor: string | null; tag: string | null; items: CNode[]; aliases: number[] };

interface PendingKey {
  name: string;
  pos: Pos;
  merge: boolean;
}

/** Builds trees from events, checking compose's limits as it goes. */
class Builder {
  readonly docs: CNode[] = [];
  readonly problems: TreeProblem[] = [];
  private stack: Frame[] = [];
  private anchors = new Map<string, CNode>();
  private visits = 0;
  private lastPos: Pos;
  private root: CNode | null = null;
  private inDoc = false;
  private documents = 0;
  /** For the aliasing check: the entries and list items written as an alias (or merged from one). */
  private aliasEntries = new Set<CEntry>();
  private aliasItems = new Map<CNode, Set<number>>();

  constructor(
    private readonly src: SourceText,
    private readonly lookup: Lookup,
  ) {
    this.lastPos = src.pos(1);
  }

  feed(events: readonly Event[], batch: Batch): void {
    // Made-up events carry offsets in the whole file.
    for (const e of batch.open) this.event(e, 0, this.src.text);
    for (let i = batch.strip; i < events.length - (batch.strip > 0 ? batch.strip : 0); i++)
      this.event(events[i] as Event, batch.offset, batch.text);
    for (let i = 0; i < batch.close; i++) this.event({ type: EV.POP }, 0, batch.text);
  }

  finish(): void {
    this.endDocument();
  }

  private event(e: Event, off: number, text: string): void {
    switch (e.type) {
      case EV.DOCUMENT:
        this.endDocument();
        this.inDoc = true;
        return;
      case EV.MAPPING:
      case EV.SEQUENCE: {
        if (!this.inDoc) this.inDoc = true;
        if (this.stack.length >= MAX_DEPTH)
          throw new Refusal(
            this.src.lineAt(e.start + off),
            `nested more than ${MAX_DEPTH} levels deep; flatten it (kvgate does not read it)`,
          );
        const pos = this.src.posAt(e.start + off);
        const anchor = e.anchorStart >= 0 ? text.slice(e.anchorStart, e.anchorEnd) : null;
        const tag = e.tagStart >= 0 ? text.slice(e.tagStart, e.tagEnd) : null;
        this.lastPos = pos;
        this.stack.push(
          e.type === EV.MAPPING
            ? { kind: "map", pos, anchor, tag, entries: new Map(), key: null, merges: [] }
            : { kind: "seq", pos, anchor, tag, items: [], aliases: [] },
        );
        return;
      }
      case EV.SCALAR:
        this.scalar(e, off, text);
        return;
      case EV.ALIAS: {
        const name = text.slice(e.anchorStart, e.anchorEnd);
        const target = this.anchors.get(name);
        const line = this.src.lineAt(e.anchorStart + off);
        if (!target)
          throw new Refusal(line, `unknown anchor '${name}' referenced; docker compose refuses the file (define &${name} before *${name})`);
        this.attach(target, true);
        return;
      }
      case EV.POP: {
        const f = this.stack.pop();
        if (!f) {
          this.endDocument();
          return;
        }
        this.attach(this.close(f), false, f.anchor);
        return;
      }
      default:
        return;
    }
  }

  private scalar(e: Extract<Event, { type: 4 }>, off: number, text: string): void {
    if (!this.inDoc) this.inDoc = true;
    const at = e.valueStart >= 0 ? e.valueStart : e.tagStart >= 0 ? e.tagStart : e.anchorStart;
    // A block scalar's value starts on the line after its `|` or `>`: its line is the indicator's.
    const lineAt = at >= 0 && (e.style === 4 || e.style === 5) ? Math.max(text.lastIndexOf("|", at), text.lastIndexOf(">", at)) : at;
    const pos = lineAt >= 0 ? this.src.posAt(lineAt + off) : this.lastPos;
    this.lastPos = pos;
    const raw = getScalarValue(text, e);
    const tag = e.tagStart >= 0 ? text.slice(e.tagStart, e.tagEnd) : null;
    const anchor = e.anchorStart >= 0 ? text.slice(e.anchorStart, e.anchorEnd) : null;
    const top = this.stack[this.stack.length - 1];
    if (top?.kind === "map" && top.key === null) {
      this.key(top, raw, e.style === 1 && tag === null ? plainType(raw) : tag === "!!null" ? "null" : undefined, pos, tag);
      if (anchor !== null) this.anchors.set(anchor, { t: "str", value: raw, pos });
      return;
    }
    let node: CNode;
    if (tag === "!reset") node = { t: "reset", pos };
    else {
      const type = e.style !== 1 ? undefined : tag === null ? plainType(raw) : tagType(tag);
      if (type === "null") node = { t: "str", value: null, pos };
      else {
        node = this.value(raw, pos, type);
        // Where the words of a command (or an environment list item) are written: only there.
        if (e.valueStart >= 0 && type === undefined && WORDS.has(this.keyOfValue(top) ?? ""))
          node.span = { src: this.src, start: e.valueStart + off, end: e.valueEnd + off };
      }
      if (tag === "!override") node.override = true;
    }
    this.attach(node, false, anchor);
  }

  /** The mapping key a value sits under (for a list item, the key of its list). */
  private keyOfValue(top: Frame | undefined): string | null {
    if (top?.kind === "map") return top.key?.name ?? null;
    const parent = this.stack[this.stack.length - 2];
    return parent?.kind === "map" ? (parent.key?.name ?? null) : null;
  }

  /** A scalar value interpolated (compose interpolates values, never keys: interpolation.go). */
  private value(raw: string, pos: Pos, type: ScalarType | undefined): Extract<CNode, { t: "str" }> {
    if (type !== undefined) return { t: "str", value: raw, pos, type };
    if (!raw.includes("$")) return { t: "str", value: raw, pos };
    const r = interpolate(raw, this.lookup);
    if (r.ok) return { t: "str", value: r.value, pos };
    if (r.kind === "invalid") {
      this.problems.push({
        line: pos.line,
        message: `${r.message}; docker compose refuses the file ("invalid interpolation format"; write $$ for a literal $)`,
      });
      return { t: "str", value: null, pos, unresolved: { vars: [] } };
    }
    const unresolved: NonNullable<Extract<CNode, { t: "str" }>["unresolved"]> = { vars: r.vars, partial: r.partial };
    if (r.required !== undefined) unresolved.required = r.required;
    return { t: "str", value: null, pos, unresolved };
  }

  private key(f: Extract<Frame, { kind: "map" }>, raw: string, type: ScalarType | "null" | undefined, pos: Pos, tag: string | null): void {
    if (raw === "<<" && (tag === null || tag === "!!merge")) {
      f.key = { name: raw, pos, merge: true };
      return;
    }
    if (type !== undefined) {
      const where = this.path();
      throw new Refusal(
        pos.line,
        `non-string key ${where === "" ? "at top level" : `in ${where}`}: ${raw}; docker compose refuses the file (quote it: "${raw}")`,
      );
    }
    const first = f.entries.get(raw);
    if (first)
      throw new Refusal(
        pos.line,
        `${raw} is defined twice in the same mapping (lines ${first.keyPos.line} ` +
          `and ${pos.line}); docker compose refuses the file ("mapping key ` +
          `${JSON.stringify(raw)} already defined at line ${first.keyPos.line}"): delete one`,
      );
    f.key = { name: raw, pos, merge: false };
  }

  private attach(node: CNode, alias: boolean, anchor: string | null = null): void {
    if (anchor !== null) this.anchors.set(anchor, node);
    const top = this.stack[this.stack.length - 1];
    if (!top) {
      this.count(node);
      this.root = node;
      return;
    }
    if (top.kind === "seq") {
      this.count(node);
      if (alias) top.aliases.push(top.items.length);
      top.items.push(node);
      return;
    }
    if (top.key === null) {
      // A mapping or sequence as a key: compose's keys are strings.
      throw new Refusal(node.pos.line, `a mapping key must be a string; docker compose refuses the file`);
    }
    const k = top.key;
    top.key = null;
    this.count(node);
    if (k.merge) {
      top.merges.push(node);
      return;
    }
    const entry = { keyPos: k.pos, value: node };
    if (alias) this.aliasEntries.add(entry);
    top.entries.set(k.name, entry);
  }

  private count(_node: CNode): void {
    if (++this.visits > MAX_NODE_VISITS) throw nodeLimit(this.src, this.lastPos.line);
  }

  private path(): string {
    const parts: string[] = [];
    for (const f of this.stack) if (f.kind === "map" && f.key) parts.push(f.key.name);
    return parts.join(".");
  }

  private close(f: Frame): CNode {
    if (f.tag === "!reset") return { t: "reset", pos: f.pos };
    const o = f.tag === "!override" ? { override: true } : {};
    if (f.kind === "seq") {
      const node: CNode = { t: "seq", items: f.items, pos: f.pos, ...o };
      if (f.aliases.length > 0) this.aliasItems.set(node, new Set(f.aliases));
      return node;
    }
    if (f.key !== null) {
      // A key with no value event (`{a}` in flow style): null, as YAML reads it.
      const k = f.key;
      if (!k.merge) f.entries.set(k.name, { keyPos: k.pos, value: { t: "str", value: null, pos: k.pos } });
      f.key = null;
    }
    // YAML merge keys: the mapping's own keys win, then each merged mapping in order (the first wins).
    for (const m of f.merges) {
      const sources = m.t === "seq" ? m.items : [m];
      for (const s of sources) {
        if (s.t !== "map")
          throw new Refusal(m.pos.line, "map merge requires map or sequence of maps as the value; docker compose refuses the file");
        for (const [k, e] of s.entries) {
          if (f.entries.has(k)) continue;
          // A merged key is decoded through the alias that names its mapping.
          const merged = { keyPos: e.keyPos, value: e.value };
          this.aliasEntries.add(merged);
          f.entries.set(k, merged);
        }
      }
    }
    return { t: "map", entries: f.entries, pos: f.pos, ...o };
  }

  private endDocument(): void {
    if (!this.inDoc) return;
    this.inDoc = false;
    const root = this.root;
    this.root = null;
    this.stack = [];
    this.anchors = new Map();
    this.visits = 0;
    const aliasEntries = this.aliasEntries;
    const aliasItems = this.aliasItems;
    this.aliasEntries = new Set();
    this.aliasItems = new Map();
    if (root === null || (root.t === "str" && root.value === null)) return;
    if (aliasEntries.size > 0 || aliasItems.size > 0) checkAliasing(root, aliasEntries, aliasItems);
    if (++this.documents > MAX_DOCUMENTS)
      throw new Refusal(
        root.pos.line,
        `more than ${MAX_DOCUMENTS.toLocaleString("en-US")} YAML documents in one compose file; ` +
          `kvgate does not read it (docker compose merges each as a layer: write one document)`,
      );
    this.docs.push(root);
  }
}

/**
 * go-yaml's alias bomb guard (decode.go): decoding fails when more than 100 nodes come from aliases,
 * more than 1,000 are decoded, and the aliased share passes allowedAliasRatio. Each node's expanded
 * size is worked out once (post-order, no recursion), so a bomb of a billion nodes is measured in one
 * pass over what is written.
 */
function checkAliasing(root: CNode, aliasEntries: ReadonlySet<CEntry>, aliasItems: ReadonlyMap<CNode, ReadonlySet<number>>): void {
  const size = new Map<CNode, number>();
  const aliased = new Map<CNode, number>();
  const stack: { n: CNode; entered: boolean }[] = [{ n: root, entered: false }];
  while (stack.length > 0) {
    const top = stack[stack.length - 1] as { n: CNode; entered: boolean };
    const n = top.n;
    if (size.has(n) || (n.t !== "map" && n.t !== "seq")) {
      if (!size.has(n)) {
        size.set(n, 1);
        aliased.set(n, 0);
      }
      stack.pop();
      continue;
    }
    const kids: [CNode, boolean][] =
      n.t === "map"
        ? [...n.entries.values()].map((e) => [e.value, aliasEntries.has(e)])
        : n.items.map((c, i) => [c, aliasItems.get(n)?.has(i) ?? false]);
    if (!top.entered) {
      top.entered = true;
      for (const [c] of kids) if (!size.has(c)) stack.push({ n: c, entered: false });
      continue;
    }
    let total = 1;
    let fromAliases = 0;
    for (const [c, viaAlias] of kids) {
      // A mapping's key is decoded too.
      const own = (size.get(c) ?? 1) + (n.t === "map" ? 1 : 0);
      total += own;
      fromAliases += viaAlias ? own : (aliased.get(c) ?? 0);
    }
    size.set(n, total);
    aliased.set(n, fromAliases);
    stack.pop();
  }
  const decoded = size.get(root) ?? 1;
  const fromAliases = aliased.get(root) ?? 0;
  if (fromAliases > 100 && decoded > 1000 && fromAliases / decoded > allowedAliasRatio(decoded))
    throw new Refusal(
      root.pos.line,
      `its aliases expand to ${decoded >= 1e9 ? "billions of" : Math.round(decoded).toLocaleString("en-US")} ` +
        `nodes, ${Math.round((100 * fromAliases) / decoded)}% of them copies ` +
        `(an alias bomb); docker compose refuses it ("document contains excessive aliasing")`,
    );
}

/** go-yaml decode.go allowedAliasRatio: 99% up to 400,000 decodes, scaling down to 10% at 4,000,000. */
function allowedAliasRatio(decodeCount: number): number {
  if (decodeCount <= 400_000) return 0.99;
  if (decodeCount >= 4_000_000) return 0.1;
  return 0.99 - (0.89 * (decodeCount - 400_000)) / 3_600_000;
}

const NULL = /^(~|null|Null|NULL)?$/;
const BOOL = /^(true|True|TRUE|false|False|FALSE)$/;
const INT = /^[-+]?(0b[01_]+|0o?[0-7_]+|0x[0-9a-fA-F_]+|[0-9][0-9_]*)$/;
const FLOAT = /^([-+]?(\.[0-9]+|[0-9][0-9_]*(\.[0-9_]*)?)([eE][-+]?[0-9]+)?|[-+]?\.(inf|Inf|INF)|\.(nan|NaN|NAN))$/;

/** go-yaml's resolution of a plain scalar (resolve.go): null, bool, int, float, else a string. */
function plainType(raw: string): ScalarType | "null" | undefined {
  if (raw === "") return "null";
  // Most scalars are names and words: only these first characters can start a null, bool or number.
  const c = raw.charCodeAt(0);
  const maybe = (c >= 48 && c <= 57) || "+-.~nNtTfF".includes(raw[0] as string);
  if (!maybe) return undefined;
  if (NULL.test(raw)) return "null";
  if (BOOL.test(raw)) return "bool";
  if (INT.test(raw)) return "int";
  if (FLOAT.test(raw)) return "float";
  return undefined;
}

function tagType(tag: string): ScalarType | "null" | undefined {
  switch (tag) {
    case "!!null":
      return "null";
    case "!!bool":
      return "bool";
    case "!!int":
      return "int";
    case "!!float":
      return "float";
    default:
      return undefined;
  }
}
