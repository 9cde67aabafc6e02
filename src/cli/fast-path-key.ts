// What the hook's fast path needs to know of the policy without loading it: the globs of every path
// that can change the fleet and the secrets.exclude globs, as the last full `check --staged` resolved
// them from kvgate.yaml, keyed by that kvgate.yaml's blob id in the index and by this build. The
// fast path trusts the record only while both keys still hold; any doubt takes the full path.
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export interface FastPathKey {
  version: 2;
  /** The build that wrote it (kvgate version and rules pack): another build reads it as absent. */
  build: string;
  /** The names a config is found under (kvgate.yaml, .kvgate.yaml). */
  names: string[];
  /** `name blobid` of each of them the index holds, sorted, one a line ("" when none). */
  config: string;
  /** Globs of the paths that can change the fleet (services, ledgers, playbooks, compose, kvgate.yaml, ...). */
  fleet: string[];
  /** secrets.exclude: a staged file under one is reported (a notice), which only the full path does. */
  exclude: string[];
  /**
   * The two glob lists compiled (picomatch's regular expressions, `dot: true`), so the fast path
   * matches without loading or running picomatch. A path equal to a glob matches too (picomatch's rule).
   */
  fleetRes: CompiledGlob[];
  excludeRes: CompiledGlob[];
  /**
   * The index listings (`ls-files` arguments) the full run made by the policy's globs: when a fleet
   * file is staged, the fast path starts them (and the opening rev-parse) while the CLI loads.
   * Optional: a key without them only starts nothing early.
   */
  listings?: string[][];
}

/** At most this many listings are started early (a run makes one or two). */
const MAX_LISTINGS = 4;

export interface CompiledGlob {
  source: string;
  flags: string;
}

const FILE = "fast-path.json";

/** git's SHA-1 blob id of some bytes (`git hash-object`); SHA-256 repositories never match it. */
function blobId(bytes: Buffer): string {
  return createHash("sha1").update(`blob ${bytes.length}\0`).update(bytes).digest("hex");
}

/** The key of the config files a snapshot holds: `name blobid` lines, sorted (what `configKey` makes of ls-files). */
export function configKeyOf(files: ReadonlyMap<string, Buffer | null>): string {
  return [...files]
    .flatMap(([name, bytes]) => (bytes === null ? [] : [`${name} ${blobId(bytes)}`]))
    .sort()
    .join("\n");
}

/** `dir` is `git rev-parse --git-path kvgate`. */
export function saveFastPathKey(dir: string, key: FastPathKey): void {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, FILE);
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(key)}\n`);
  renameSync(tmp, file);
}

/** The stored key, or null when missing, unreadable, malformed or from another build. */
export function loadFastPathKey(dir: string, build: string): FastPathKey | null {
  try {
    const k = JSON.parse(readFileSync(join(dir, FILE), "utf8")) as Partial<FastPathKey>;
    const strings = (v: unknown): v is string[] => Array.isArray(v) && v.every((s) => typeof s === "string");
    const compiled = (v: unknown): v is CompiledGlob[] =>
      Array.isArray(v) && v.every((c: Partial<CompiledGlob>) => typeof c?.source === "string" && typeof c.flags === "string");
    if (
      k.version !== 2 ||
      !compiled(k.fleetRes) ||
      !compiled(k.excludeRes) ||
      k.build !== build ||
      typeof k.config !== "string" ||
      !strings(k.names) ||
      !strings(k.fleet) ||
      !strings(k.exclude) ||
      !(k.listings === undefined || isListings(k.listings))
    )
      return null;
    return k as FastPathKey;
  } catch {
    return null;
  }
}

/** Argument lists of `git ls-files` (read only): nothing else is ever started from a key. */
function isListings(v: unknown): v is string[][] {
  return (
    Array.isArray(v) &&
    v.length <= MAX_LISTINGS &&
    v.every((a) => Array.isArray(a) && a[0] === "ls-files" && a.includes("--") && a.every((x) => typeof x === "string"))
  );
}
