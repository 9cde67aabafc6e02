// Reads the test tables of trufflehog's detector tests (Go source) without a Go toolchain: a tokenizer
// with Go's semicolon rule, and an evaluator for the few expressions the tables build their inputs
// from (string literals, named constants and variables of the file, `+`, fmt.Sprintf, strings.Repeat,
// strings.Join, []byte(…), string(…)). Anything else is Unsupported, and the case is left out (and
// counted) rather than guessed.

export class Unsupported extends Error {}

const KEEP_SEMI = new Set(["ident", "string", "number", "char"]);
const SEMI_AFTER = new Set([")", "]", "}", "++", "--"]);

function unescape(body) {
  let out = "";
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (c !== "\\") {
      out += c;
      continue;
    }
    const n = body[++i];
    const simple = { n: "\n", t: "\t", r: "\r", a: "\x07", b: "\b", f: "\f", v: "\v", "\\": "\\", '"': '"', "'": "'" };
    if (n in simple) out += simple[n];
    else if (n === "x") {
      out += String.fromCharCode(parseInt(body.slice(i + 1, i + 3), 16));
      i += 2;
    } else if (n === "u") {
      out += String.fromCodePoint(parseInt(body.slice(i + 1, i + 5), 16));
      i += 4;
    } else if (n === "U") {
      out += String.fromCodePoint(parseInt(body.slice(i + 1, i + 9), 16));
      i += 8;
    } else if (/[0-7]/.test(n)) {
      out += String.fromCharCode(parseInt(body.slice(i, i + 3), 8));
      i += 2;
    } else throw new Unsupported(`escape \\${n}`);
  }
  return out;
}

/** Go tokens: {t: kind, v: text or value}, with `;` inserted where Go's lexer inserts one. */
export function tokenize(src) {
  const toks = [];
  const push = (t, v) => toks.push({ t, v });
  const last = () => toks[toks.length - 1];
  const needsSemi = () => {
    const l = last();
    return l !== undefined && (KEEP_SEMI.has(l.t) || SEMI_AFTER.has(l.v));
  };
  let i = 0;
  while (i < src.length) {
    const c = src[i];
    if (c === "\n") {
      if (needsSemi()) push("op", ";");
      i++;
    } else if (c === " " || c === "\t" || c === "\r") i++;
    else if (src.startsWith("//", i)) {
      const e = src.indexOf("\n", i);
      i = e < 0 ? src.length : e;
    } else if (src.startsWith("/*", i)) {
      const e = src.indexOf("*/", i + 2);
      const body = src.slice(i, e < 0 ? src.length : e);
      if (body.includes("\n") && needsSemi()) push("op", ";");
      i = e < 0 ? src.length : e + 2;
    } else if (c === "`") {
      const e = src.indexOf("`", i + 1);
      if (e < 0) throw new Unsupported("unterminated raw string");
      push("string", src.slice(i + 1, e).replace(/\r/g, ""));
      i = e + 1;
    } else if (c === '"') {
      let j = i + 1;
      while (j < src.length && src[j] !== '"') j += src[j] === "\\" ? 2 : 1;
      push("string", unescape(src.slice(i + 1, j)));
      i = j + 1;
    } else if (c === "'") {
      let j = i + 1;
      while (j < src.length && src[j] !== "'") j += src[j] === "\\" ? 2 : 1;
      const s = unescape(src.slice(i + 1, j));
      push("char", s.codePointAt(0) ?? 0);
      i = j + 1;
    } else if (/[A-Za-z_]/.test(c)) {
      const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(src.slice(i, i + 200));
      push("ident", m[0]);
      i += m[0].length;
    } else if (/[0-9]/.test(c)) {
      const m = /^(?:0[xX][0-9a-fA-F_]+|[0-9_]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?)/.exec(src.slice(i, i + 100));
      push("number", Number(m[0].replace(/_/g, "")));
      i += m[0].length;
    } else {
      const three = src.slice(i, i + 3);
      const two = src.slice(i, i + 2);
      const op = ["...", "<<=", ">>="].includes(three)
        ? three
        : [":=", "==", "!=", "<=", ">=", "&&", "||", "++", "--", "+=", "-=", "<-", "<<", ">>"].includes(two)
          ? two
          : c;
      push("op", op);
      i += op.length;
    }
  }
  if (needsSemi()) push("op", ";");
  return toks;
}

/** Go's %-verbs that the tables use, on evaluated arguments. */
function sprintf(format, args) {
  let k = 0;
  return format.replace(/%([-+# 0]*)(\d*)(?:\.(\d+))?([svdqxXc%])/g, (_m, _flags, _w, _p, verb) => {
    if (verb === "%") return "%";
    if (k >= args.length) throw new Unsupported("Sprintf: missing argument");
    const a = args[k++];
    if (verb === "q") return JSON.stringify(String(a));
    if (verb === "x") return typeof a === "number" ? a.toString(16) : Buffer.from(String(a)).toString("hex");
    if (verb === "c") return String.fromCodePoint(Number(a));
    if (Array.isArray(a)) return `[${a.join(" ")}]`;
    return String(a);
  });
}

/**
 * The file's named values: `const`/`var` declarations (single or in blocks) and `name := expr`. Each
 * name keeps every definition, in source order, so a table reads the one written before it.
 */
export class GoFile {
  constructor(src) {
    this.toks = tokenize(src);
    this.defs = new Map();
    this.#collect();
  }

  #define(name, at) {
    if (!this.defs.has(name)) this.defs.set(name, []);
    this.defs.get(name).push({ at, value: undefined, busy: false });
  }

  /** After the names (and an optional type): the start of each expression of `a, b = x, y`. */
  #defineList(names, exprStart) {
    let p = exprStart;
    names.forEach((n, k) => {
      this.#define(n, p);
      if (k < names.length - 1) p = this.#skipExpr(p) + 1;
    });
  }

  #skipExpr(p) {
    let depth = 0;
    for (; p < this.toks.length; p++) {
      const v = this.toks[p].t === "op" ? this.toks[p].v : null;
      if (v === "(" || v === "[" || v === "{") depth++;
      else if (v === ")" || v === "]" || v === "}") {
        if (depth === 0) return p;
        depth--;
      } else if (depth === 0 && (v === "," || v === ";")) return p;
    }
    return p;
  }

  #collect() {
    const t = this.toks;
    for (let p = 0; p < t.length; p++) {
      const tok = t[p];
      if (tok.t === "ident" && (tok.v === "const" || tok.v === "var")) {
        if (t[p + 1]?.v === "(") {
          let q = p + 2;
          while (q < t.length && t[q].v !== ")") {
            q = this.#specAt(q);
            while (q < t.length && t[q].v === ";") q++;
          }
        } else this.#specAt(p + 1);
      } else if (tok.t === "op" && tok.v === ":=") {
        const names = [];
        let q = p - 1;
        while (q >= 0 && t[q].t === "ident") {
          names.unshift(t[q].v);
          if (t[q - 1]?.v !== ",") break;
          q -= 2;
        }
        this.#defineList(names, p + 1);
      }
    }
  }

  /** One `a, b T = x, y` spec; returns the position after it. */
  #specAt(q) {
    const t = this.toks;
    const names = [];
    while (t[q]?.t === "ident") {
      names.push(t[q].v);
      if (t[q + 1]?.v !== ",") break;
      q += 2;
    }
    q++;
    while (q < t.length && t[q].v !== "=" && t[q].v !== ";" && t[q].v !== ")") q++;
    if (t[q]?.v === "=") {
      this.#defineList(names, q + 1);
      let e = q + 1;
      for (let k = 0; k < names.length; k++) e = this.#skipExpr(e) + (k < names.length - 1 ? 1 : 0);
      return e;
    }
    return q;
  }

  /** The value of `name` as seen from token `at`: the last definition before it, else the first after. */
  lookup(name, at) {
    const list = this.defs.get(name);
    if (!list) throw new Unsupported(`unknown name ${name}`);
    const before = list.filter((d) => d.at < at);
    const def = before[before.length - 1] ?? list[0];
    if (def.busy) throw new Unsupported(`recursive ${name}`);
    if (def.value === undefined) {
      def.busy = true;
      try {
        def.value = this.evalAt(def.at).value;
      } finally {
        def.busy = false;
      }
    }
    return def.value;
  }

  /** Evaluates the expression starting at token `p`: {value, end}. */
  evalAt(p) {
    const r = this.#sum(p);
    return r;
  }

  #sum(p) {
    let { value, end } = this.#unary(p);
    while (this.toks[end]?.v === "+") {
      const r = this.#unary(end + 1);
      if (typeof value !== typeof r.value) throw new Unsupported("+ of mixed types");
      value = value + r.value;
      end = r.end;
    }
    if (this.toks[end]?.v === "*" && typeof value === "number") {
      const r = this.#unary(end + 1);
      value *= r.value;
      end = r.end;
    }
    return { value, end };
  }

  #args(p) {
    // p is at "("
    const values = [];
    let q = p + 1;
    if (this.toks[q]?.v === ")") return { values, end: q + 1 };
    for (;;) {
      const r = this.#sum(q);
      values.push(r.value);
      q = r.end;
      if (this.toks[q]?.v === "...") {
        const spread = values.pop();
        if (!Array.isArray(spread)) throw new Unsupported("spread of a non-list");
        values.push(...spread);
        q++;
      }
      if (this.toks[q]?.v === ",") q++;
      if (this.toks[q]?.v === ")") return { values, end: q + 1 };
      if (q >= this.toks.length) throw new Unsupported("unterminated call");
    }
  }

  /** `{ a, b, }` of a composite literal, p at "{". */
  #elements(p) {
    const values = [];
    let q = p + 1;
    while (this.toks[q]?.v === ";") q++;
    while (this.toks[q]?.v !== "}") {
      const r = this.#sum(q);
      values.push(r.value);
      q = r.end;
      while (this.toks[q]?.v === "," || this.toks[q]?.v === ";") q++;
      if (q >= this.toks.length) throw new Unsupported("unterminated literal");
    }
    return { values, end: q + 1 };
  }

  #unary(p) {
    const t = this.toks;
    const tok = t[p];
    if (!tok) throw new Unsupported("end of input");
    if (tok.t === "string" || tok.t === "number") return { value: tok.v, end: p + 1 };
    if (tok.t === "char") return { value: tok.v, end: p + 1 };
    if (tok.v === "(") {
      const r = this.#sum(p + 1);
      if (t[r.end]?.v !== ")") throw new Unsupported("unbalanced (");
      return { value: r.value, end: r.end + 1 };
    }
    // []string{…}, []byte(…)
    if (tok.v === "[" && t[p + 1]?.v === "]" && t[p + 2]?.t === "ident") {
      const type = t[p + 2].v;
      if (type === "string" && t[p + 3]?.v === "{") {
        const r = this.#elements(p + 3);
        return { value: r.values, end: r.end };
      }
      if (type === "byte" && t[p + 3]?.v === "(") {
        const r = this.#args(p + 3);
        return { value: String(r.values[0]), end: r.end };
      }
      throw new Unsupported(`[]${type}`);
    }
    if (tok.t !== "ident") throw new Unsupported(`token ${tok.v}`);
    if (tok.v === "nil") return { value: [], end: p + 1 };
    if (tok.v === "string" && t[p + 1]?.v === "(") {
      const r = this.#args(p + 1);
      return { value: String(r.values[0]), end: r.end };
    }
    if (t[p + 1]?.v === "." && t[p + 2]?.t === "ident" && t[p + 3]?.v === "(") {
      const fn = `${tok.v}.${t[p + 2].v}`;
      const r = this.#args(p + 3);
      const a = r.values;
      const value =
        fn === "fmt.Sprintf"
          ? sprintf(String(a[0]), a.slice(1))
          : fn === "strings.Repeat"
            ? String(a[0]).repeat(Number(a[1]))
            : fn === "strings.Join"
              ? a[0].join(String(a[1]))
              : fn === "strings.ToUpper"
                ? String(a[0]).toUpperCase()
                : fn === "strings.ToLower"
                  ? String(a[0]).toLowerCase()
                  : fn === "strings.TrimSpace"
                    ? String(a[0]).trim()
                    : fn === "base64.StdEncoding.EncodeToString"
                      ? Buffer.from(String(a[0])).toString("base64")
                      : undefined;
      if (value === undefined) throw new Unsupported(`call ${fn}`);
      return { value, end: r.end };
    }
    if (t[p + 1]?.v === "(" || t[p + 1]?.v === ".") throw new Unsupported(`call ${tok.v}`);
    return { value: this.lookup(tok.v, p), end: p + 1 };
  }
}

/**
 * The table rows of a test file: every composite literal holding `input:` and a `want:` list, with
 * the row's `name:`. Rows whose input or want cannot be evaluated come back with `skip` (the reason).
 */
export function tableRows(src) {
  const file = new GoFile(src);
  const t = file.toks;
  const rows = [];
  for (let p = 0; p < t.length; p++) {
    if (!(t[p].t === "ident" && t[p].v === "input" && t[p + 1]?.v === ":")) continue;
    // The enclosing `{`: walk back to the brace that opens this row.
    let depth = 0;
    let open = -1;
    for (let q = p - 1; q >= 0; q--) {
      const v = t[q].t === "op" ? t[q].v : null;
      if (v === "}" || v === ")" || v === "]") depth++;
      else if (v === "{" || v === "(" || v === "[") {
        if (depth === 0) {
          open = q;
          break;
        }
        depth--;
      }
    }
    if (open < 0 || t[open].v !== "{") continue;
    // The row's own keys (at depth 0 inside it).
    const keys = new Map();
    depth = 0;
    let close = -1;
    for (let q = open + 1; q < t.length; q++) {
      const v = t[q].t === "op" ? t[q].v : null;
      if (v === "{" || v === "(" || v === "[") depth++;
      else if (v === "}" || v === ")" || v === "]") {
        if (depth === 0) {
          close = q;
          break;
        }
        depth--;
      } else if (
        depth === 0 &&
        t[q].t === "ident" &&
        t[q + 1]?.v === ":" &&
        (t[q - 1]?.v === "{" || t[q - 1]?.v === "," || t[q - 1]?.v === ";")
      ) {
        keys.set(t[q].v, q + 2);
      }
    }
    if (close < 0) continue;
    if (!keys.has("want")) continue;
    const row = { name: "", input: null, want: null, skip: null };
    try {
      if (keys.has("name")) row.name = String(file.evalAt(keys.get("name")).value);
    } catch {
      row.name = "";
    }
    try {
      const input = file.evalAt(keys.get("input")).value;
      const want = file.evalAt(keys.get("want")).value;
      if (typeof input !== "string") throw new Unsupported("input is not a string");
      if (!Array.isArray(want)) throw new Unsupported("want is not a list");
      row.input = input;
      row.want = want.map(String);
    } catch (e) {
      if (!(e instanceof Unsupported)) throw e;
      row.skip = e.message;
    }
    rows.push(row);
    p = close;
  }
  return rows;
}
