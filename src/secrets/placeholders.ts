// The value-scoped placeholder filter. It sees only the value (the whole run of the detector's
// character set around a match), never a path, file or line: a real key beside a placeholder, or in a
// file full of them, is still a finding.
//
// Built-in values and patterns come from rules/secrets.yaml (reviewed with the package, run as
// JavaScript regexes over values no longer than a detector's maximum); kvgate.yaml's patterns come
// from a repository anyone can send a pull request to, so they run in RE2 semantics (linear time).
import { compileLinear } from "./user-pattern.js";
import { jwtExampleKey } from "./jwt.js";

export interface PlaceholderHit {
  /** Where the placeholder is listed. */
  source: "rules/secrets.yaml" | "kvgate.yaml";
  kind: "value" | "pattern" | "example-signature";
  /** The pattern that matched (kind `pattern`), the published key a JWT verifies with (`example-signature`). */
  pattern?: string;
}

export interface PlaceholderFilter {
  match(value: string): PlaceholderHit | null;
}

export interface PlaceholderLists {
  values: readonly string[];
  patterns: readonly string[];
  /** Published JWT signing keys (rules/secrets.yaml only): a token they verify is an example. */
  jwtSigningKeys?: readonly string[];
}

function anchored(pattern: string, where: string): RegExp {
  try {
    return new RegExp(`^(?:${pattern})$`);
  } catch {
    throw new Error(`${where}: placeholder pattern ${JSON.stringify(pattern)} is not a valid regular expression; fix or remove it`);
  }
}

/** `builtin` from rules/secrets.yaml; `policy` is `policy.secrets.placeholders` (kvgate.yaml and defaults). */
/** Filters by the identity of their two lists: an audit re-scans thousands of commits under one policy. */
const filters = new WeakMap<PlaceholderLists, WeakMap<PlaceholderLists, PlaceholderFilter>>();

export function placeholderFilter(builtin: PlaceholderLists, policy: PlaceholderLists): PlaceholderFilter {
  let byPolicy = filters.get(builtin);
  if (!byPolicy) {
    byPolicy = new WeakMap();
    filters.set(builtin, byPolicy);
  }
  let filter = byPolicy.get(policy);
  if (!filter) {
    filter = compileFilter(builtin, policy);
    byPolicy.set(policy, filter);
  }
  return filter;
}

function compileFilter(builtin: PlaceholderLists, policy: PlaceholderLists): PlaceholderFilter {
  const values = new Map<string, PlaceholderHit["source"]>();
  for (const v of policy.values) values.set(v, "kvgate.yaml");
  for (const v of builtin.values) values.set(v, "rules/secrets.yaml");
  const patterns: { test: (v: string) => boolean; source: PlaceholderHit["source"]; pattern: string }[] = [
    ...builtin.patterns.map((p) => {
      const re = anchored(p, "rules/secrets.yaml");
      return { test: (v: string) => re.test(v), source: "rules/secrets.yaml" as const, pattern: p };
    }),
    ...policy.patterns
      .filter((p) => !builtin.patterns.includes(p))
      .map((p) => {
        const re = compileLinear(p, "kvgate.yaml secrets.placeholders.patterns");
        return { test: (v: string) => re.fullMatch(v), source: "kvgate.yaml" as const, pattern: p };
      }),
  ];
  const signingKeys = builtin.jwtSigningKeys ?? [];
  return {
    match(value) {
      const source = values.get(value);
      if (source) return { source, kind: "value" };
      for (const p of patterns) if (p.test(value)) return { source: p.source, kind: "pattern", pattern: p.pattern };
      const key = value.startsWith("eyJ") && signingKeys.length > 0 ? jwtExampleKey(value, signingKeys) : null;
      if (key !== null) return { source: "rules/secrets.yaml", kind: "example-signature", pattern: key };
      return null;
    },
  };
}
