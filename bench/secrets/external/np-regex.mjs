// Nosey Parker's rule patterns (Rust regex syntax) as JavaScript regexes, so the corpus builder can
// ask the source itself whether a negative example of one rule is a secret by another of its rules.
// Handles what the rules use: leading inline flags, extended mode (`(?x)` whitespace and comments),
// `(?#…)` comments, `(?i:…)` groups and mid-pattern `(?i)` (letters spelled in both cases), `(?s)`.

/** Extended mode: whitespace and `#` comments outside character classes are not part of the pattern. */
function stripExtended(s) {
  let out = "";
  let inClass = false;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === "\\") {
      out += c + (s[i + 1] ?? "");
      i++;
    } else if (inClass) {
      out += c;
      if (c === "]") inClass = false;
    } else if (c === "[") {
      inClass = true;
      out += c;
    } else if (c === "#") {
      const e = s.indexOf("\n", i);
      i = e < 0 ? s.length : e;
    } else if (!/\s/.test(c)) out += c;
  }
  return out;
}

/** `(?i:…)`: each ASCII letter outside a class as `[xX]` (a class's letters get both cases too). */
function caseless(group) {
  let out = "";
  for (let i = 0; i < group.length; i++) {
    const c = group[i];
    if (c === "\\") {
      out += c + (group[i + 1] ?? "");
      i++;
    } else if (c === "[") {
      const e = group.indexOf("]", i + 1);
      const body = group.slice(i + 1, e);
      out += `[${body}${body.replace(/[a-z]/g, (x) => x.toUpperCase()).replace(/[^A-Z]/g, "")}${body.replace(/[A-Z]/g, (x) => x.toLowerCase()).replace(/[^a-z]/g, "")}]`;
      i = e;
    } else if (/[A-Za-z]/.test(c)) out += `[${c.toLowerCase()}${c.toUpperCase()}]`;
    else out += c;
  }
  return out;
}

/** The group's body from `start` (just after its opening) to its closing parenthesis. */
function groupEnd(s, start) {
  let depth = 0;
  for (let i = start; i < s.length; i++) {
    if (s[i] === "\\") i++;
    else if (s[i] === "[") {
      while (i < s.length && s[i] !== "]") i += s[i] === "\\" ? 2 : 1;
    } else if (s[i] === "(") depth++;
    else if (s[i] === ")") {
      if (depth === 0) return i;
      depth--;
    }
  }
  return s.length;
}

export function npRegex(pattern) {
  let s = pattern;
  let flags = "";
  for (;;) {
    const m = /^\s*\(\?([imsx]+)\)/.exec(s);
    if (!m) break;
    flags += m[1];
    s = s.slice(m[0].length);
  }
  if (flags.includes("x")) s = stripExtended(s.replace(/\(\?#[^)]*\)/g, ""));
  s = s.replace(/\(\?#[^)]*\)/g, "");
  for (let at = s.indexOf("(?i:"); at >= 0; at = s.indexOf("(?i:")) {
    const end = groupEnd(s, at + 4);
    s = `${s.slice(0, at)}(?:${caseless(s.slice(at + 4, end))}${s.slice(end)}`;
  }
  // A mid-pattern `(?i)` holds to the end of its group; a mid-pattern `(?s)` is taken for the whole
  // pattern (a dot matching a newline elsewhere too: a little more matches, never fewer).
  for (let at = s.indexOf("(?i)"); at >= 0; at = s.indexOf("(?i)")) {
    const end = groupEnd(s, at + 4);
    s = `${s.slice(0, at)}${caseless(s.slice(at + 4, end))}${s.slice(end)}`;
  }
  if (s.includes("(?s)")) {
    s = s.replaceAll("(?s)", "");
    flags += "s";
  }
  const js = [...new Set(flags.replace(/x/g, ""))].join("");
  return new RegExp(s, js);
}
