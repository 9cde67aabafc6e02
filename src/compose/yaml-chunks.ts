// A big compose file is parsed a piece at a time: each top-level entry, and each entry of a big
// top-level block (a service under `services:`), is a YAML text of its own whose events are spliced
// into the file's stream (wrappers stripped, the parent's key and mapping made up). The builder then
// holds one piece's events at a time instead of the whole file's, and stops at compose's node limit
// after reading the first pieces (the pieces are made as they are asked for). Where a file does not
// have that plain shape (a top-level list, a quoted or anchored top-level key, a directive), it is
// parsed whole; a piece that does not parse alone makes the caller parse the whole file, so an error
// is always the file's own.
import type { Event } from "js-yaml";
import type { Batch } from "./yaml.js";

/** Files up to this size are parsed whole (the pieces only pay off for big files). */
export const WHOLE_UP_TO = 512 * 1024;

/** A line at column 0 that is not blank, not a comment and not indented. */
const COLUMN0 = /^[^ \t\r\n#][^\n]*/gm;
const TOP_KEY = /^[A-Za-z0-9_.$-][^\n:#]*:(?:[ \t\r]|$)/;
const ANCHORED = /^[^:]*:[ \t]*[&!*]/;
const BLOCK_HEADER = /^([A-Za-z0-9_.-]+):[ \t]*(?:#[^\n]*)?\r?$/;
const DOC_MARKER = /^(?:---|\.\.\.)(?:[ \t\r]|$)/;

export function* chunksOf(text: string): Generator<Batch> {
  const whole: Batch = { text, offset: 0, strip: 0, open: [], close: 0, partial: false };
  if (text.length <= WHOLE_UP_TO) {
    yield whole;
    return;
  }
  const plan = planOf(text);
  if (!plan) {
    yield whole;
    return;
  }
  for (const doc of plan) {
    let first = true;
    for (const [n, entry] of doc.entries.entries()) {
      const last = n === doc.entries.length - 1;
      // Consecutive entries are parsed together up to PIECE bytes: a parse has a fixed cost.
      const pieces = grouped(entry.children ?? [entry.start], entry.end);
      const ends = [...pieces.slice(1), entry.end];
      for (const [k, start] of pieces.entries()) {
        const b: Batch = { text: text.slice(start, ends[k]), offset: start, strip: 2, open: [], close: 0, partial: true };
        if (first) b.open.push({ type: 1, explicitStart: false, explicitEnd: false, directives: [] }, mapping(entry.start));
        first = false;
        if (k === 0 && entry.children) b.open.push(keyEvent(entry.start, entry.key), mapping(start));
        if (k === pieces.length - 1 && entry.children) b.close += 1;
        if (k === pieces.length - 1 && last) b.close += 2;
        yield b;
      }
    }
  }
}

/** The size of text parsed at once: small enough to hold few events, big enough to amortise a parse. */
const PIECE = 32 * 1024;

function grouped(starts: readonly number[], end: number): number[] {
  const out: number[] = [];
  for (const s of starts) if (out.length === 0 || s - (out[out.length - 1] as number) >= PIECE) out.push(s);
  return out.length > 0 ? out : [end];
}

interface Entry {
  start: number;
  end: number;
  key: string;
  /** Offsets of the entries of its block, when it is split into them. */
  children: number[] | null;
}

/** The documents' top-level entries; null when the file is not plain enough to cut. */
function planOf(text: string): { entries: Entry[] }[] | null {
  const docs: { entries: Entry[] }[] = [];
  let entries: Entry[] = [];
  let sawDoc = false;
  let docStart = 0;
  COLUMN0.lastIndex = 0;
  for (let m = COLUMN0.exec(text); m; m = COLUMN0.exec(text)) {
    const line = m[0];
    if (DOC_MARKER.test(line)) {
      if (line.slice(3).trim() !== "" && !line.slice(3).trim().startsWith("#")) return null;
      if (sawDoc || entries.length > 0) docs.push({ entries });
      closeLast(entries, m.index);
      entries = [];
      sawDoc = true;
      docStart = text.indexOf("\n", m.index) + 1 || text.length;
      continue;
    }
    if (!TOP_KEY.test(line) || ANCHORED.test(line)) return null;
    // Before a document's first entry: only blank lines and comments.
    if (entries.length === 0 && !/^(?:[ \t]*(?:#[^\n]*)?\r?\n)*$/.test(text.slice(docStart, m.index))) return null;
    closeLast(entries, m.index);
    entries.push({ start: m.index, end: text.length, key: line.slice(0, line.indexOf(":")), children: null });
  }
  if (entries.length > 0) docs.push({ entries });
  for (const d of docs) for (const e of d.entries) e.children = childrenOf(text, e);
  return docs.filter((d) => d.entries.length > 0);
}

function closeLast(entries: Entry[], at: number): void {
  const last = entries[entries.length - 1];
  if (last) last.end = at;
}

/** The entries of a big `key:` block at one indent, or null when it is small or not that shape. */
function childrenOf(text: string, e: Entry): number[] | null {
  if (e.end - e.start < WHOLE_UP_TO / 2) return null;
  const headerEnd = text.indexOf("\n", e.start);
  if (headerEnd < 0 || !BLOCK_HEADER.test(text.slice(e.start, headerEnd))) return null;
  const body = /^( +)[^ \t\r\n#]/gm;
  body.lastIndex = headerEnd + 1;
  const firstLine = body.exec(text);
  if (!firstLine || firstLine.index >= e.end) return null;
  const indent = (firstLine[1] as string).length;
  // Lines indented less than the block (but not at column 0), or with a tab, and it is not cut.
  const shallower = indent > 1 ? new RegExp(`^ {1,${indent - 1}}[^ \\t\\r\\n#]|^\\t`, "gm") : /^\t/gm;
  shallower.lastIndex = headerEnd + 1;
  const odd = shallower.exec(text);
  if (odd && odd.index < e.end) return null;
  // Each line at the block's indent starts an entry; it must be `name:` (no capture, no copy: a big
  // block has a hundred thousand of them).
  const child = new RegExp(`^ {${indent}}(?=[^ \\t\\r\\n#])`, "gm");
  const key = /[A-Za-z0-9_.-]+:(?:[ \t\r\n]|$)/y;
  child.lastIndex = headerEnd + 1;
  const out: number[] = [];
  for (let m = child.exec(text); m && m.index < e.end; m = child.exec(text)) {
    key.lastIndex = m.index + indent;
    if (!key.test(text)) return null;
    out.push(m.index);
  }
  return out.length >= 2 ? out : null;
}

function keyEvent(start: number, key: string): Event {
  return {
    type: 4,
    valueStart: start,
    valueEnd: start + key.length,
    anchorStart: -1,
    anchorEnd: -1,
    tagStart: -1,
    tagEnd: -1,
    style: 1,
    chomping: 1,
    indent: -1,
    fast: true,
  };
}

function mapping(start: number): Event {
  return { type: 3, start, anchorStart: -1, anchorEnd: -1, tagStart: -1, tagEnd: -1, style: 1 };
}
