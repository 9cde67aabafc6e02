// A snapshot's env files under the `services` glob, and the ledger facts files among its paths, found
// in one pass over the listing (10,000 paths per snapshot in a big repository).
import picomatch from "picomatch";
import type { Snapshot } from "../git/types.js";
import type { Policy } from "../config/policy.js";
import { serviceNameOf } from "../model/build.js";
import { ledgerPathOf } from "../parse/ledger-facts.js";

export interface ServiceIndex {
  servicePaths: string[];
  ledgerFactsPaths: string[];
}

/**
 * Per snapshot object and `services`/`ledgers` pair: a snapshot's listing is fixed once listed, so
 * the filter runs once however often the snapshot is loaded.
 */
const indexes = new WeakMap<Snapshot, Map<string, ServiceIndex>>();
const matchers = new Map<string, (path: string) => boolean>();

/**
 * picomatch's compiled RegExp, tested directly: the same answers for `/`-separated paths as
 * `picomatch(glob, { dot: true })(path)` (which also accepts the glob itself), at a fraction of the
 * cost (its matcher re-formats every input first), and a listing has 10,000 paths per snapshot.
 * A glob with a literal leading folder matches only under it: one startsWith rules out the rest.
 */
export function pathMatcher(glob: string): (path: string) => boolean {
  const re = picomatch.makeRe(glob, { dot: true });
  const { base, negated } = picomatch.scan(glob);
  const under = !negated && base !== "" && !/^[./]|\\/.test(base) ? `${base}/` : "";
  return (path) => path === glob || ((under === "" || path.startsWith(under)) && re.test(path));
}

export function serviceIndex(snapshot: Snapshot, paths: readonly string[], policy: Policy): ServiceIndex {
  const key = `${policy.services}\0${policy.ledgers}`;
  let perKey = indexes.get(snapshot);
  if (!perKey) indexes.set(snapshot, (perKey = new Map<string, ServiceIndex>()));
  const hit = perKey.get(key);
  if (hit) return hit;
  let isService = matchers.get(policy.services);
  if (!isService) matchers.set(policy.services, (isService = pathMatcher(policy.services)));
  // ONE pass over the listing: the services, and the paths that could be a facts file (the pattern's
  // text before the first and after the last `{service}`), so no scan per service.
  const parts = policy.ledgers.split("{service}");
  const head = parts[0] ?? "";
  const tail = parts.length > 1 ? (parts[parts.length - 1] ?? "") : "";
  const servicePaths: string[] = [];
  const maybeFacts: string[] = [];
  for (const p of paths) {
    if (isService(p)) servicePaths.push(p);
    if (p.endsWith(tail) && p.startsWith(head)) maybeFacts.push(p);
  }
  const factsOf = new Set(servicePaths.map((p) => ledgerPathOf(policy.ledgers, serviceNameOf(p))));
  const made = { servicePaths, ledgerFactsPaths: maybeFacts.filter((p) => factsOf.has(p)) };
  perKey.set(key, made);
  return made;
}
