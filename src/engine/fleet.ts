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

export async function loadFleet(snapshot: Snapshot, policy: Policy, pack: RulesPack, readers: FleetReaders[] = []): Promise<FleetState> {
  const paths = await snapshot.list();
  const isService = picomatch(policy.services, { dot: true });
  const servicePaths = paths.filter((p) => isService(p));
  const wanted = new Set(servicePaths);
  for (const p of servicePaths) {
    const ledger = ledgerPathOf(policy.ledgers, serviceNameOf(p));
    if (paths.includes(ledger)) wanted.add(ledger);
  }
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
