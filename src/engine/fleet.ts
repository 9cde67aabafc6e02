// Loads one side of a change (a Snapshot) into the typed fleet model: the policy, every service env
// file, the radiance ledger facts, and the playbooks. One batched read per snapshot.
import picomatch from "picomatch";
import type { Snapshot } from "../git/types.js";
import type { FleetState, ParsedEnv } from "../model/types.js";
import type { Policy } from "../config/policy.js";
import type { RulesPack } from "../rules/pack.js";
import { CONFIG_NAMES, loadPolicy } from "../config/load.js";
import { parseEnv } from "../parse/env.js";
import { buildService, emptyFleet, serviceNameOf } from "../model/build.js";
import { ledgerPathOf } from "../parse/ledger.js";

export interface DecodedFile {
  text: string | null;
  /** Why the file could not be read as text (non-UTF-8, NUL bytes). */
  problem: string | null;
}

const decoder = new TextDecoder("utf-8", { fatal: true });

export function decode(buf: Buffer | null): DecodedFile {
  if (buf === null) return { text: null, problem: null };
  if (buf.includes(0)) return { text: null, problem: "the file holds a NUL byte: it is binary, not an env file; restore it as text" };
  try {
    return { text: decoder.decode(buf), problem: null };
  } catch {
    return { text: null, problem: "the file is not valid UTF-8; save it as UTF-8" };
  }
}

/** A file the gate could not read as text becomes an env/parse problem on line 1, never a crash. */
function unreadableEnv(file: string, problem: string): ParsedEnv {
  return { file, entries: new Map(), all: [], flags: [], positionals: [], problems: [{ kind: "parse", line: 1, message: problem }] };
}

/** The config text of a snapshot: kvgate.yaml, else .kvgate.yaml, else none. */
export async function readConfig(snapshot: Snapshot): Promise<{ text: string | null; file: string }> {
  const files = await snapshot.read([...CONFIG_NAMES]);
  for (const name of CONFIG_NAMES) {
    const d = decode(files.get(name) ?? null);
    if (d.problem) return { text: "\u0000", file: name };
    if (d.text !== null) return { text: d.text, file: name };
  }
  return { text: null, file: CONFIG_NAMES[0] };
}

export async function policyOf(snapshot: Snapshot, pack: RulesPack): Promise<Policy> {
  const c = await readConfig(snapshot);
  return loadPolicy(c.text, c.file, pack);
}

/** Extension points that later parts of the gate (ledgers, playbooks) plug into. */
export interface FleetReaders {
  /** Extra paths to read given the listing (e.g. playbooks and their includes). */
  extraPaths?(paths: string[], policy: Policy): string[];
  /** Adds to the fleet from the files read. */
  enrich?(fleet: FleetState, files: Map<string, DecodedFile>, policy: Policy, pack: RulesPack): void;
}

/** A snapshot's env files under one `services` glob, and the ledger files among its paths. */
interface ServiceIndex {
  servicePaths: string[];
  ledgers: string[];
}

/**
 * Per snapshot object and `services`/`ledgers` pair: a snapshot's listing is fixed once listed, so
 * the 10,000-path filter runs once however often the snapshot is loaded.
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

function serviceIndex(snapshot: Snapshot, paths: readonly string[], policy: Policy): ServiceIndex {
  const key = `${policy.services}\0${policy.ledgers}`;
  let perKey = indexes.get(snapshot);
  if (!perKey) indexes.set(snapshot, (perKey = new Map()));
  const hit = perKey.get(key);
  if (hit) return hit;
  let isService = matchers.get(policy.services);
  if (!isService) matchers.set(policy.services, (isService = pathMatcher(policy.services)));
  // ONE pass over the listing: the services, and the paths that could be a ledger (the pattern's
  // text before the first and after the last `{service}`), so no scan per service.
  const parts = policy.ledgers.split("{service}");
  const head = parts[0] ?? "";
  const tail = parts.length > 1 ? (parts[parts.length - 1] ?? "") : "";
  const servicePaths: string[] = [];
  const maybeLedgers: string[] = [];
  for (const p of paths) {
    if (isService(p)) servicePaths.push(p);
    if (p.endsWith(tail) && p.startsWith(head)) maybeLedgers.push(p);
  }
  const ledgerOf = new Set(servicePaths.map((p) => ledgerPathOf(policy.ledgers, serviceNameOf(p))));
  const made = { servicePaths, ledgers: maybeLedgers.filter((p) => ledgerOf.has(p)) };
  perKey.set(key, made);
  return made;
}

export async function loadFleet(snapshot: Snapshot, policy: Policy, pack: RulesPack, readers: FleetReaders[] = []): Promise<FleetState> {
  const paths = await snapshot.list();
  const { servicePaths, ledgers } = serviceIndex(snapshot, paths, policy);
  const wanted = new Set(servicePaths);
  for (const ledger of ledgers) wanted.add(ledger);
  for (const r of readers) for (const p of r.extraPaths?.(paths, policy) ?? []) wanted.add(p);
  const raw = await snapshot.read([...wanted]);
  const files = new Map<string, DecodedFile>();
  for (const [p, buf] of raw) files.set(p, decode(buf));
  const fleet = emptyFleet(policy);
  fleet.paths = paths;
  for (const p of servicePaths) {
    const d = files.get(p);
    if (!d || (d.text === null && d.problem === null)) continue;
    const parsed = d.problem ? unreadableEnv(p, d.problem) : parseEnv(d.text as string, p);
    fleet.services.push(buildService(parsed, pack, policy));
  }
  for (const r of readers) r.enrich?.(fleet, files, policy, pack);
  return fleet;
}

/**
 * Loads for one run. A range's unit N+1 `before` is unit N's `after` (same label): it is loaded
 * once. The policy read from a snapshot is shared by every snapshot with the same config text, so
 * units that do not touch kvgate.yaml also share one Policy object (which `load` keys by).
 * One loader per run: within it a label must name one state (labels are shas, `index`, `HEAD`,
 * `worktree`, `empty`), which holds while the repository is not changed under the run.
 */
export interface FleetLoader {
  /** loadFleet, memoised by `snapshot.label` and the identity of policy, pack and each reader. */
  load(snapshot: Snapshot, policy: Policy, pack: RulesPack, readers?: FleetReaders[]): Promise<FleetState>;
  /** policyOf, memoised by the config file's name and text (and the pack). */
  policy(snapshot: Snapshot, pack: RulesPack): Promise<Policy>;
}

/** Fleets kept: the engine walks units in order, so the previous unit's after is all it asks again. */
const FLEETS_KEPT = 4;
const POLICIES_KEPT = 16;
const NO_READERS: FleetReaders[] = [];

export function createFleetLoader(): FleetLoader {
  const fleets = new Map<string, { policy: Policy; pack: RulesPack; readers: FleetReaders[]; fleet: Promise<FleetState> }>();
  const policies = new Map<string, { pack: RulesPack; policy: Policy }>();
  return {
    load(snapshot, policy, pack, readers = NO_READERS) {
      const hit = fleets.get(snapshot.label);
      if (hit && hit.policy === policy && hit.pack === pack && sameReaders(hit.readers, readers)) {
        fleets.delete(snapshot.label);
        fleets.set(snapshot.label, hit);
        return hit.fleet;
      }
      const fleet = loadFleet(snapshot, policy, pack, readers);
      // A failed load is not kept: the error is the caller's, and a retry must read again.
      fleet.catch(() => {
        if (fleets.get(snapshot.label)?.fleet === fleet) fleets.delete(snapshot.label);
      });
      keep(fleets, snapshot.label, { policy, pack, readers, fleet }, FLEETS_KEPT);
      return fleet;
    },
    async policy(snapshot, pack) {
      const c = await readConfig(snapshot);
      const key = `${c.file}\0${c.text ?? "\u0001none"}`;
      const hit = policies.get(key);
      if (hit && hit.pack === pack) return hit.policy;
      const policy = loadPolicy(c.text, c.file, pack);
      keep(policies, key, { pack, policy }, POLICIES_KEPT);
      return policy;
    },
  };
}

/** Element by element: callers build the list per call (`opts.readers ?? []`, fleetReaders()). */
function sameReaders(a: readonly FleetReaders[], b: readonly FleetReaders[]): boolean {
  return a.length === b.length && a.every((r, i) => r === b[i]);
}

function keep<V>(map: Map<string, V>, key: string, value: V, max: number): void {
  map.delete(key);
  map.set(key, value);
  for (const k of map.keys()) {
    if (map.size <= max) break;
    map.delete(k);
  }
}
