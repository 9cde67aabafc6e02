// The Action's inputs (action.yml), read through @actions/core's getInput and checked like CLI flags:
// a wrong value fails the step with what to write instead.
import { GateError } from "../errors.js";
import type { FailOn } from "../engine/result.js";
import type { Shard } from "../git/index.js";

export interface ActionInputs {
  mode: "check" | "audit";
  base: string | null;
  head: string | null;
  unit: "commit" | "range";
  config: string | null;
  failOn: FailOn;
  sarif: string | null;
  policyFrom: "head" | "base";
  /** mode: audit only: `I/N`, this job's block of the range (kvgate audit --shard). */
  shard?: Shard;
}

export type GetInput = (name: string) => string;

function choice<T extends string>(get: GetInput, name: string, allowed: readonly T[], fallback: T): T {
  const v = get(name).trim();
  if (v === "") return fallback;
  if (!(allowed as readonly string[]).includes(v)) {
    throw new GateError(`input ${name} must be one of ${allowed.join(", ")} (got "${v}")`, {
      hint: `set \`with: ${name}: ${fallback}\` or remove it`,
    });
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
    ...shardInput(get),
  };
}

/** `shard: I/N` splits an audit over a CI matrix (`shard: ${{ matrix.shard }}/4`). */
function shardInput(get: GetInput): { shard?: Shard } {
  const v = get("shard").trim();
  if (v === "") return {};
  const m = /^(\d{1,6})\/(\d{1,6})$/.exec(v);
  if (!m || Number(m[1]) < 1 || Number(m[1]) > Number(m[2])) {
    throw new GateError(`input shard must be I/N with 1 <= I <= N (got "${v}")`, {
      hint: "set `with: shard: ${{ matrix.shard }}/4` with matrix.shard in 1..4, or remove it",
    });
  }
  if (get("mode").trim() !== "audit")
    throw new GateError("input shard goes with mode: audit", { hint: "set `with: mode: audit`, or remove shard" });
  return { shard: { index: Number(m[1]), count: Number(m[2]) } };
}
