// The Action's inputs (action.yml), read through @actions/core's getInput and checked like CLI flags:
// a wrong value fails the step with what to write instead.
import { GateError } from "../errors.js";
import type { FailOn } from "../engine/result.js";

export interface ActionInputs {
  mode: "check" | "audit";
  base: string | null;
  head: string | null;
  unit: "commit" | "range";
  config: string | null;
  failOn: FailOn;
  sarif: string | null;
  policyFrom: "head" | "base";
}

export type GetInput = (name: string) => string;

function choice<T extends string>(get: GetInput, name: string, allowed: readonly T[], fallback: T): T {
  const v = get(name).trim();
  if (v === "") return fallback;
  if (!(allowed as readonly string[]).includes(v)) {
    throw new GateError(`input ${name} must be one of ${allowed.join(", ")} (got "${v}")`, { hint: `set \`with: ${name}: ${fallback}\` or remove it` });
  }
  return v as T;
}

function optional(get: GetInput, name: string): string | null {
  const v = get(name).trim();
  return v === "" ? null : v;
}

export function readInputs(get: GetInput): ActionInputs {
  return {
    mode: choice(get, "mode", ["check", "audit"] as const, "check"),
    base: optional(get, "base"),
    head: optional(get, "head"),
    unit: choice(get, "unit", ["commit", "range"] as const, "commit"),
    config: optional(get, "config"),
    failOn: choice(get, "fail-on", ["error", "warning", "never"] as const, "error"),
    sarif: optional(get, "sarif"),
    policyFrom: choice(get, "policy-from", ["base", "head"] as const, "base"),
  };
}
