// A role's `.j2` file rendered as Ansible's template module would (docs/playbooks.md#templates):
// `{{ }}` through the expression subset of ./template.ts, `{% if %}`/`{% elif %}`/`{% else %}`,
// `{% for x in list %}` (and `for k, v in d.items()`, `loop.index`/`first`/`last`), `{% set x = … %}`,
// `{% raw %}`, `{# #}`, whitespace control (`{%-`, `-%}`) and Ansible's trim_blocks (the newline after a
// block tag is dropped). Each output line keeps the template line that wrote it and, piece by piece,
// the variable each value came from. What kvgate cannot evaluate (a condition on a variable defined
// outside the repository, an `{% include %}`) does not stop the render: the lines it touches are
// marked unsure, and the reader skips and reports the settings on them.
import { asText, evaluate, Failed, Undef, pairPlace, truthy, type Part, type Scope } from "./template.js";
import { placeOf, setPlaces, type VarRef } from "./vars.js";

export interface OutLine {
  text: string;
  /** The template line that wrote it (its first piece that is not blank). */
  src: number;
  /** The pieces, with the variable each value came from. */
  parts: Part[];
  /** Why the line cannot be trusted (an expression or a condition kvgate could not evaluate). */
  unsure: { expr: string; reason: string } | null;
}

interface TemplateProblem {
  /** `parse`: Jinja refuses the template (Ansible fails the task). `unresolved`: valid, not evaluated. */
  kind: "parse" | "unresolved";
  line: number;
  message: string;
}

export interface RenderedTemplate {
  lines: OutLine[];
  /** Set when the template does not parse: nothing was rendered. */
  error: TemplateProblem | null;
}

type Tok = { k: "text" | "out" | "stmt"; v: string; line: number };

type JNode =
  | { k: "text"; v: string; line: number }
  | { k: "out"; expr: string; line: number }
  | { k: "if"; branches: { cond: string | null; body: JNode[]; line: number }[] }
  | { k: "for"; targets: string[]; iter: string; body: JNode[]; other: JNode[] | null; line: number }
  | { k: "set"; name: string; expr: string; line: number }
  | { k: "unsupported"; what: string; line: number };

/** Block statements kvgate does not evaluate, with their end tags: their content is unsure. */
const OPAQUE_BLOCKS = new Set(["macro", "call", "filter", "with", "block", "autoescape", "trans"]);
/** One-tag statements kvgate does not evaluate. */
const OPAQUE_TAGS = new Set(["include", "import", "from", "extends", "do", "break", "continue"]);

export function renderTemplate(text: string, scope: Scope): RenderedTemplate {
  const toks = lex(text.replace(/\r\n?/g, "\n"));
  if (toks instanceof Failed) return { lines: [], error: errorOf(toks) };
  const tree = parse(toks);
  if (!Array.isArray(tree)) return { lines: [], error: tree };
  const out = new Out();
  renderNodes(tree, [{}, ...scope], out, null);
  return { lines: out.finish(), error: null };
}

function errorOf(f: Failed): TemplateProblem {
  const m = /^line (\d+): ([\s\S]*)$/.exec(f.failed);
  return { kind: "parse", line: m ? Number(m[1]) : 1, message: m ? (m[2] as string) : f.failed };
}

// ---- lexing --------------------------------------------------------------------------------------

function lex(src: string): Tok[] | Failed {
  const toks: Tok[] = [];
  let i = 0;
  let line = 1;
  let stripNext = false;
  let trimNewline = false;
  const lineAt = (from: number, to: number): number => {
    for (let j = from; j < to; j++) if (src[j] === "\n") line++;
    return line;
  };
  const pushText = (v: string, at: number): void => {
    let t = v;
    let l = at;
    if (stripNext) {
      const lead = /^\s*/.exec(t)?.[0] ?? "";
      l += lead.split("\n").length - 1;
      t = t.slice(lead.length);
    } else if (trimNewline && t.startsWith("\n")) {
      t = t.slice(1);
      l++;
    }
    stripNext = false;
    trimNewline = false;
    if (t !== "") toks.push({ k: "text", v: t, line: l });
  };
  while (i < src.length) {
    const open = /\{[{%#]/g;
    open.lastIndex = i;
    const m = open.exec(src);
    const textEnd = m ? m.index : src.length;
    const textLine = line;
    lineAt(i, textEnd);
    pushText(src.slice(i, textEnd), textLine);
    if (!m) break;
    const kind = src[m.index + 1] as "{" | "%" | "#";
    const close = kind === "{" ? "}}" : kind === "%" ? "%}" : "#}";
    const end = src.indexOf(close, m.index + 2);
    const tagLine = line;
    if (end < 0) return new Failed(`line ${tagLine}: the ${src.slice(m.index, m.index + 2)} is never closed (${close})`);
    let body = src.slice(m.index + 2, end);
    if (body.startsWith("-")) {
      const last = toks[toks.length - 1];
      if (last?.k === "text") {
        last.v = last.v.replace(/\s+$/, "");
        if (last.v === "") toks.pop();
      }
      body = body.slice(1);
    } else if (body.startsWith("+")) body = body.slice(1);
    const stripAfter = body.endsWith("-");
    const keepAfter = body.endsWith("+");
    if (stripAfter || keepAfter) body = body.slice(0, -1);
    lineAt(m.index, end + 2);
    i = end + 2;
    if (kind === "%" && /^\s*raw\s*$/.test(body)) {
      // `{% raw %}…{% endraw %}`: the text between, as written.
      const endRaw = /\{%-?\s*endraw\s*-?%\}/g;
      endRaw.lastIndex = i;
      const e = endRaw.exec(src);
      if (!e) return new Failed(`line ${tagLine}: {% raw %} is never closed ({% endraw %})`);
      const rawLine = line;
      lineAt(i, e.index + e[0].length);
      stripNext = stripAfter;
      trimNewline = !keepAfter;
      pushText(src.slice(i, e.index), rawLine);
      i = e.index + e[0].length;
      trimNewline = true;
      continue;
    }
    if (kind !== "#") toks.push({ k: kind === "{" ? "out" : "stmt", v: body.trim(), line: tagLine });
    stripNext = stripAfter;
    // Ansible's template module sets trim_blocks: the newline right after a block or comment tag goes.
    trimNewline = kind !== "{" && !keepAfter;
  }
  return toks;
}

// ---- parsing -------------------------------------------------------------------------------------

interface Open {
  node: Extract<JNode, { k: "if" } | { k: "for" }> | { k: "opaque"; what: string; line: number };
  body: JNode[];
}

function parse(toks: Tok[]): JNode[] | TemplateProblem {
  const root: JNode[] = [];
  const stack: Open[] = [];
  const body = (): JNode[] => stack[stack.length - 1]?.body ?? root;
  const fail = (line: number, message: string): TemplateProblem => ({ kind: "parse", line, message });
  for (const t of toks) {
    if (t.k === "text") body().push({ k: "text", v: t.v, line: t.line });
    else if (t.k === "out") body().push({ k: "out", expr: t.v, line: t.line });
    else {
      const word = /^[a-z_]+/.exec(t.v)?.[0] ?? "";
      const rest = t.v.slice(word.length).trim();
      const top = stack[stack.length - 1];
      if (word === "if") {
        const node: JNode = { k: "if", branches: [{ cond: rest, body: [], line: t.line }] };
        body().push(node);
        stack.push({ node, body: node.branches[0]?.body ?? [] });
      } else if (word === "elif" || (word === "else" && top?.node.k !== "for")) {
        if (top?.node.k !== "if") return fail(t.line, `{% ${word} %} without an {% if %}`);
        const branch = { cond: word === "elif" ? rest : null, body: [] as JNode[], line: t.line };
        top.node.branches.push(branch);
        top.body = branch.body;
      } else if (word === "else" && top?.node.k === "for") {
        top.node.other = [];
        top.body = top.node.other;
      } else if (word === "for") {
        const m = /^([A-Za-z_]\w*(?:\s*,\s*[A-Za-z_]\w*)*)\s+in\s+([\s\S]+)$/.exec(rest);
        if (!m) return fail(t.line, `{% for ${rest} %} is not \`for x in list\``);
        const iter = (m[2] as string).trim();
        const node: JNode = {
          k: "for",
          targets: (m[1] as string).split(",").map((s) => s.trim()),
          iter,
          body: [],
          other: null,
          line: t.line,
        };
        body().push(node);
        stack.push({ node, body: node.body });
        if (/\s(if|recursive)\s|\srecursive$/.test(` ${iter} `))
          node.body.push({ k: "unsupported", what: "a filtered or recursive {% for %}", line: t.line });
      } else if (word === "set" && rest.includes("=")) {
        const m = /^([A-Za-z_]\w*)\s*=\s*([\s\S]+)$/.exec(rest);
        if (m) body().push({ k: "set", name: m[1] as string, expr: m[2] as string, line: t.line });
        else body().push({ k: "unsupported", what: `{% set ${rest} %}`, line: t.line });
      } else if (OPAQUE_BLOCKS.has(word) || word === "set") {
        const node = { k: "opaque" as const, what: word, line: t.line };
        body().push({ k: "unsupported", what: `{% ${word} %}`, line: t.line });
        stack.push({ node, body: [] });
      } else if (word.startsWith("end")) {
        const what = word.slice(3);
        const openWord = top ? (top.node.k === "opaque" ? top.node.what : top.node.k) : null;
        if (openWord !== what)
          return fail(
            t.line,
            `{% ${word} %} ${openWord ? `closes nothing here: the {% ${openWord} %} of line ${top?.node.k === "opaque" ? top.node.line : lineOfOpen(top)} is open` : "without its opening tag"}`,
          );
        stack.pop();
      } else if (OPAQUE_TAGS.has(word)) body().push({ k: "unsupported", what: `{% ${word} %}`, line: t.line });
      else return fail(t.line, `{% ${t.v} %} is not a Jinja statement`);
    }
  }
  const open = stack[stack.length - 1];
  if (open) {
    const what = open.node.k === "opaque" ? open.node.what : open.node.k;
    return fail(open.node.k === "opaque" ? open.node.line : lineOfOpen(open), `{% ${what} %} is never closed ({% end${what} %})`);
  }
  return root;
}

function lineOfOpen(o: Open | undefined): number {
  if (!o) return 1;
  if (o.node.k === "if") return o.node.branches[0]?.line ?? 1;
  return o.node.line;
}

// ---- rendering -----------------------------------------------------------------------------------

class Out {
  private lines: OutLine[] = [];
  private cur: OutLine = Out.fresh();
  private static fresh(): OutLine {
    return { text: "", src: 0, parts: [], unsure: null };
  }
  /** Text as the template writes it: each new line of it is the template's next line. */
  text(v: string, line: number, unsure: Unsure): void {
    this.pieces(v, (i) => line + i, null, unsure);
  }
  /** What a `{{ }}` gave: all of it is the tag's line. */
  value(v: string, line: number, at: VarRef | null, unsure: Unsure): void {
    this.pieces(v, () => line, at, unsure);
  }
  mark(u: NonNullable<Unsure>): void {
    this.cur.unsure ??= u;
  }
  /** The current line has text already (an inline `{% if %}` changes it). */
  started(): boolean {
    return this.cur.text.trim() !== "";
  }
  private pieces(v: string, lineOf: (i: number) => number, at: VarRef | null, unsure: Unsure): void {
    v.split("\n").forEach((seg, i) => {
      if (i > 0) this.newline(lineOf(i));
      if (seg === "") return;
      if (unsure) this.mark(unsure);
      if (this.cur.src === 0 || (this.cur.text.trim() === "" && seg.trim() !== "")) this.cur.src = lineOf(i);
      this.cur.parts.push({ text: seg, at, col: this.cur.text.length });
      this.cur.text += seg;
    });
  }
  private newline(next: number): void {
    if (this.cur.src === 0) this.cur.src = Math.max(1, next - 1);
    this.lines.push(this.cur);
    this.cur = Out.fresh();
  }
  finish(): OutLine[] {
    if (this.cur.text !== "" || this.cur.unsure) this.lines.push({ ...this.cur, src: this.cur.src || 1 });
    return this.lines;
  }
}

type Unsure = OutLine["unsure"];

function renderNodes(nodes: JNode[], scope: Scope, out: Out, unsure: Unsure): void {
  // `{% set %}` writes into the innermost layer (the template's, or this loop pass's).
  const sets = scope[0] as Record<string, unknown>;
  for (const n of nodes) {
    switch (n.k) {
      case "text":
        out.text(n.v, n.line, unsure);
        break;
      case "out": {
        const v = evaluate(n.expr, scope);
        if (v instanceof Failed) out.mark({ expr: `{{ ${n.expr} }}`, reason: v.failed });
        else out.value(asText(v.v), n.line, v.at, unsure);
        break;
      }
      case "set": {
        const v = evaluate(n.expr, scope);
        sets[n.name] = v instanceof Failed ? new Undef(n.name, v.failed) : v.v;
        if (!(v instanceof Failed) && v.at) setPlaces(sets, new Map([...placesOf(sets), [n.name, v.at]]));
        break;
      }
      case "if":
        renderIf(n, scope, out, unsure);
        break;
      case "for":
        renderFor(n, scope, out, unsure);
        break;
      case "unsupported": {
        const u = { expr: n.what, reason: `${n.what} is not evaluated by kvgate` };
        out.mark(u);
        break;
      }
      default:
        n satisfies never;
    }
  }
}

function placesOf(obj: Record<string, unknown>): [string, VarRef][] {
  return Object.keys(obj).flatMap((k) => {
    const p = placeOf(obj, k);
    return p ? [[k, p] as [string, VarRef]] : [];
  });
}

function renderIf(n: Extract<JNode, { k: "if" }>, scope: Scope, out: Out, unsure: Unsure): void {
  for (const b of n.branches) {
    if (b.cond === null) return renderNodes(b.body, scope, out, unsure);
    const c = evaluate(b.cond, scope);
    if (c instanceof Failed) {
      // Which branch runs is unknown: every branch's lines are unsure, and so is a line the if sits in.
      const u = unsure ?? { expr: `{% if ${b.cond} %}`, reason: c.failed };
      if (out.started()) out.mark(u);
      for (const other of n.branches.slice(n.branches.indexOf(b))) renderNodes(other.body, scope, out, u);
      return;
    }
    if (truthy(c.v)) return renderNodes(b.body, scope, out, unsure);
  }
}

function renderFor(n: Extract<JNode, { k: "for" }>, scope: Scope, out: Out, unsure: Unsure): void {
  const it = evaluate(n.iter, scope);
  let items: unknown[] | null = null;
  let reason = "";
  if (it instanceof Failed) reason = it.failed;
  else if (Array.isArray(it.v)) items = it.v;
  else if (it.v !== null && typeof it.v === "object") items = Object.keys(it.v);
  else reason = `\`${n.iter}\` is not a list`;
  if (items === null) {
    // How many passes is unknown: the body once, every line of it unsure.
    const u = unsure ?? { expr: `{% for ${n.targets.join(", ")} in ${n.iter} %}`, reason };
    if (out.started()) out.mark(u);
    const layer = Object.fromEntries(n.targets.map((t) => [t, new Undef(t, reason)]));
    renderNodes(n.body, [{}, layer, ...scope], out, u);
    return;
  }
  if (items.length === 0 && n.other) return renderNodes(n.other, [{}, ...scope], out, unsure);
  items.forEach((item, i) => {
    const layer: Record<string, unknown> = {
      loop: { index: i + 1, index0: i, first: i === 0, last: i === items.length - 1, length: items.length, revindex: items.length - i },
    };
    if (n.targets.length === 1) layer[n.targets[0] as string] = item;
    else {
      const tuple: unknown[] = Array.isArray(item) ? (item as unknown[]) : [];
      n.targets.forEach((t, j) => (layer[t] = j < tuple.length ? tuple[j] : new Undef(t)));
      // `for k, v in env.items()`: v is written where the mapping's key is.
      const at = pairPlace(item);
      const last = n.targets[n.targets.length - 1];
      if (at && last) setPlaces(layer, new Map([[last, at]]));
    }
    renderNodes(n.body, [{}, layer, ...scope], out, unsure);
  });
}
