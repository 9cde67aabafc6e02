// The syntax of the Jinja expression subset of ./template.ts: tokens, then a small recursive-descent
// parser in Jinja's precedence (inline if < or < and < not < comparisons and `in` < `~` < arithmetic <
// unary minus < attribute, index, call, `|` filter and `is` test). What it cannot parse is a Failed,
// whose text says why; evaluation is ./template.ts's.

/** A class, not a shape, so a variable holding `{ failed: ... }` is never mistaken for a failure. */
export class Failed {
  constructor(readonly failed: string) {}
}

type Tok = { k: "str"; v: string } | { k: "num"; v: number } | { k: "name"; v: string } | { k: "op"; v: string };

const OPS = [
  "**",
  "//",
  "==",
  "!=",
  "<=",
  ">=",
  "<",
  ">",
  "|",
  ".",
  ",",
  "(",
  ")",
  "[",
  "]",
  "{",
  "}",
  "+",
  "-",
  "*",
  "/",
  "%",
  "~",
  "=",
  ":",
];

export function tokenize(s: string): Tok[] | Failed {
  const out: Tok[] = [];
  let i = 0;
  while (i < s.length) {
    const c = s[i] as string;
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    if (c === "'" || c === '"') {
      let j = i + 1;
      let v = "";
      while (j < s.length && s[j] !== c) {
        if (s[j] === "\\" && j + 1 < s.length) {
          const n = s[j + 1] as string;
          v += n === "n" ? "\n" : n === "t" ? "\t" : n;
          j += 2;
        } else v += s[j++];
      }
      if (j >= s.length) return new Failed(`the quote in \`${s}\` is never closed`);
      out.push({ k: "str", v });
      i = j + 1;
      continue;
    }
    const num = /^\d+(\.\d+)?/.exec(s.slice(i));
    if (num) {
      out.push({ k: "num", v: Number(num[0]) });
      i += num[0].length;
      continue;
    }
    const name = /^[A-Za-z_][A-Za-z0-9_]*/.exec(s.slice(i));
    if (name) {
      out.push({ k: "name", v: name[0] });
      i += name[0].length;
      continue;
    }
    const op = OPS.find((o) => s.startsWith(o, i));
    if (!op) return new Failed(`\`${s}\` is not an expression kvgate reads`);
    out.push({ k: "op", v: op });
    i += op.length;
  }
  return out;
}

// ---- syntax --------------------------------------------------------------------------------------

export type Node =
  | { t: "lit"; v: unknown }
  | { t: "name"; name: string }
  | { t: "get"; base: Node; key: Node; text: string }
  | { t: "call"; base: Node; args: Node[] }
  | { t: "filter"; base: Node; name: string; args: Node[] }
  | { t: "test"; base: Node; name: string; neg: boolean }
  | { t: "not"; e: Node }
  | { t: "bool"; op: "and" | "or"; a: Node; b: Node }
  | { t: "cmp"; op: string; a: Node; b: Node }
  | { t: "in"; a: Node; b: Node; neg: boolean }
  | { t: "concat"; a: Node; b: Node }
  | { t: "arith"; op: string }
  | { t: "cond"; then: Node; cond: Node; else: Node | null }
  | { t: "list"; items: Node[] };

const CMP = new Set(["==", "!=", "<", ">", "<=", ">="]);
const ARITH = new Set(["+", "-", "*", "/", "//", "%", "**"]);

export class Parser {
  private i = 0;
  constructor(private readonly toks: Tok[]) {}

  done(): boolean {
    return this.i >= this.toks.length;
  }
  private peek(off = 0): Tok | undefined {
    return this.toks[this.i + off];
  }
  private isOp(v: string, off = 0): boolean {
    const t = this.peek(off);
    return t?.k === "op" && t.v === v;
  }
  private isName(v: string, off = 0): boolean {
    const t = this.peek(off);
    return t?.k === "name" && t.v === v;
  }
  private expect(v: string): Failed | null {
    if (!this.isOp(v)) return new Failed(`a \`${v}\` is missing`);
    this.i++;
    return null;
  }

  expression(): Node | Failed {
    const a = this.or();
    if (a instanceof Failed || !this.isName("if")) return a;
    this.i++;
    const cond = this.or();
    if (cond instanceof Failed) return cond;
    let other: Node | null = null;
    if (this.isName("else")) {
      this.i++;
      const e = this.expression();
      if (e instanceof Failed) return e;
      other = e;
    }
    return { t: "cond", then: a, cond, else: other };
  }
  private or(): Node | Failed {
    let a = this.and();
    while (!(a instanceof Failed) && this.isName("or")) {
      this.i++;
      const b = this.and();
      if (b instanceof Failed) return b;
      a = { t: "bool", op: "or", a, b };
    }
    return a;
  }
  private and(): Node | Failed {
    let a = this.not();
    while (!(a instanceof Failed) && this.isName("and")) {
      this.i++;
      const b = this.not();
      if (b instanceof Failed) return b;
      a = { t: "bool", op: "and", a, b };
    }
    return a;
  }
  private not(): Node | Failed {
    if (this.isName("not")) {
      this.i++;
      const e = this.not();
      return e instanceof Failed ? e : { t: "not", e };
    }
    return this.compare();
  }
  private compare(): Node | Failed {
    let a = this.concat();
    for (;;) {
      if (a instanceof Failed) return a;
      const t = this.peek();
      if (t?.k === "op" && CMP.has(t.v)) {
        this.i++;
        const b = this.concat();
        if (b instanceof Failed) return b;
        a = { t: "cmp", op: t.v, a, b };
      } else if (this.isName("in") || (this.isName("not") && this.isName("in", 1))) {
        const neg = this.isName("not");
        this.i += neg ? 2 : 1;
        const b = this.concat();
        if (b instanceof Failed) return b;
        a = { t: "in", a, b, neg };
      } else return a;
    }
  }
  private concat(): Node | Failed {
    let a = this.arith();
    while (!(a instanceof Failed) && this.isOp("~")) {
      this.i++;
      const b = this.arith();
      if (b instanceof Failed) return b;
      a = { t: "concat", a, b };
    }
    return a;
  }
  private arith(): Node | Failed {
    const a = this.unary();
    if (a instanceof Failed) return a;
    const t = this.peek();
    if (t?.k === "op" && ARITH.has(t.v)) {
      // Parsed to the end, so the message is about the operator, not the syntax.
      this.i++;
      const b = this.arith();
      return b instanceof Failed ? b : { t: "arith", op: t.v };
    }
    return a;
  }
  private unary(): Node | Failed {
    if (this.isOp("-")) {
      this.i++;
      const e = this.unary();
      if (e instanceof Failed) return e;
      return e.t === "lit" && typeof e.v === "number" ? { t: "lit", v: -e.v } : { t: "arith", op: "-" };
    }
    return this.postfix();
  }
  private postfix(): Node | Failed {
    let base = this.primary();
    for (;;) {
      if (base instanceof Failed) return base;
      if (this.isOp(".")) {
        const t = this.peek(1);
        if (t?.k !== "name" && t?.k !== "num") return new Failed("a `.` is not followed by a name");
        this.i += 2;
        base = { t: "get", base, key: { t: "lit", v: String(t.v) }, text: `.${t.v}` };
      } else if (this.isOp("[")) {
        this.i++;
        const key = this.expression();
        if (key instanceof Failed) return key;
        const miss = this.expect("]");
        if (miss) return miss;
        base = { t: "get", base, key, text: "[…]" };
      } else if (this.isOp("(")) {
        this.i++;
        const args = this.args(")");
        if (args instanceof Failed) return args;
        base = { t: "call", base, args };
      } else if (this.isOp("|")) {
        const t = this.peek(1);
        if (t?.k !== "name") return new Failed("a `|` is not followed by a filter name");
        this.i += 2;
        let args: Node[] = [];
        if (this.isOp("(")) {
          this.i++;
          const a = this.args(")");
          if (a instanceof Failed) return a;
          args = a;
        }
        base = { t: "filter", base, name: t.v, args };
      } else if (this.isName("is")) {
        const neg = this.isName("not", 1);
        const t = this.peek(neg ? 2 : 1);
        if (t?.k !== "name") return new Failed("`is` is not followed by a test name");
        this.i += neg ? 3 : 2;
        base = { t: "test", base, name: t.v, neg };
      } else return base;
    }
  }
  private args(close: string): Node[] | Failed {
    const out: Node[] = [];
    while (!this.isOp(close)) {
      if (this.peek()?.k === "name" && this.isOp("=", 1)) return new Failed("keyword arguments are not read");
      const e = this.expression();
      if (e instanceof Failed) return e;
      out.push(e);
      if (this.isOp(",")) this.i++;
      else if (!this.isOp(close)) return new Failed(`a \`${close}\` is missing`);
    }
    this.i++;
    return out;
  }
  private primary(): Node | Failed {
    const t = this.peek();
    if (!t) return new Failed("the expression ends too early");
    this.i++;
    if (t.k === "str" || t.k === "num") return { t: "lit", v: t.v };
    if (t.k === "name") {
      if (t.v === "true" || t.v === "True") return { t: "lit", v: true };
      if (t.v === "false" || t.v === "False") return { t: "lit", v: false };
      if (t.v === "none" || t.v === "None") return { t: "lit", v: null };
      return { t: "name", name: t.v };
    }
    if (t.v === "(") {
      const e = this.expression();
      if (e instanceof Failed) return e;
      const miss = this.expect(")");
      return miss ?? e;
    }
    if (t.v === "[") {
      const items = this.args("]");
      return items instanceof Failed ? items : { t: "list", items };
    }
    return new Failed(`\`${t.v}\` cannot start an expression kvgate reads`);
  }
}
