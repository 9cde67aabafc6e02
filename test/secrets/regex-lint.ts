// A small structural lint of regex sources: catastrophic backtracking needs a quantified group that
// itself holds a quantifier, or unbounded repetition re-tried at every start position.
export interface RegexLint {
  nested: boolean;
  unbounded: boolean;
}

export function lintRegex(source: string): RegexLint {
  const stack: boolean[] = [];
  let nested = false;
  let unbounded = false;
  let lastGroupHadQuantifier = false;
  const markQuantifier = (): void => {
    if (stack.length > 0) stack[stack.length - 1] = true;
  };
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (c === "\\") {
      i++;
      lastGroupHadQuantifier = false;
      continue;
    }
    if (c === "[") {
      for (i++; i < source.length && source[i] !== "]"; i++) if (source[i] === "\\") i++;
      lastGroupHadQuantifier = false;
      continue;
    }
    if (c === "(") {
      stack.push(false);
      lastGroupHadQuantifier = false;
      continue;
    }
    if (c === ")") {
      lastGroupHadQuantifier = stack.pop() ?? false;
      // A quantified group counts as a quantifier for its parent.
      const next = source[i + 1];
      if (next === "*" || next === "+" || next === "{" || next === "?") {
        if (lastGroupHadQuantifier && next !== "?") nested = true;
      }
      if (lastGroupHadQuantifier) markQuantifier();
      continue;
    }
    if (c === "*" || c === "+") {
      unbounded = true;
      if (lastGroupHadQuantifier) nested = true;
      markQuantifier();
    } else if (c === "{") {
      const m = /^\{(\d+)(,(\d*))?\}/.exec(source.slice(i));
      if (m) {
        if (m[2] !== undefined && m[3] === "") unbounded = true;
        if (lastGroupHadQuantifier) nested = true;
        markQuantifier();
        i += m[0].length - 1;
      }
    } else if (c === "?") {
      // `(?:`, `(?<name>`, `(?=` are group syntax, handled by skipping here; a bare `?` is bounded.
      if (source[i - 1] !== "(") markQuantifier();
    }
    lastGroupHadQuantifier = false;
  }
  return { nested, unbounded };
}
