// User placeholder patterns (kvgate.yaml secrets.placeholders.patterns) run in RE2 semantics: a
// pull request may add a pattern, and a backtracking engine lets `(A+)+x` hang the gate on one long
// value. re2js (a port of RE2, linear in the input, no dependencies) runs them; what RE2 cannot run
// (backreferences, lookaround) is refused with that reason, never handed to a backtracking engine.
import { RE2JS } from "re2js";
import { re2Problem } from "../config/schema.js";

export interface LinearPattern {
  /** True when the whole value matches. */
  fullMatch(value: string): boolean;
}

export function compileLinear(pattern: string, where: string): LinearPattern {
  const problem = re2Problem(pattern);
  if (problem) throw new Error(`${where}: placeholder pattern ${JSON.stringify(pattern)} is ${problem}`);
  const re = RE2JS.compile(`^(?:${pattern})$`);
  return { fullMatch: (value) => re.matches(value) };
}
