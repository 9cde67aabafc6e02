// The pre-commit hook's fast path: `kvgate check --staged` on a change that cannot touch the fleet.
// One `git diff` says what is staged (with `ls-files` for the config's identity started beside it); the
// verdict's key is HEAD (read from the git dir's files) and that diff, so no `write-tree` runs. When no staged path can change the fleet or the policy and
// no added line holds the start of a secret (a detector's keyword AND its regex: what the full scan
// needs before it can report anything), the verdict is the full path's — pass, no findings — and it
// is recorded and printed here without loading the config schema, YAML, the rules pack or a check.
//
// This file is its own bundle (dist/fast.cjs, which bin/kvgate.js loads before dist/cli.cjs): its cost
// is that bundle, not the CLI's. Anything it cannot decide returns null and the full path runs, so a
// doubt costs time, never a verdict. test/cli/fast-path.e2e.test.ts runs both paths on a table of
// changes and compares stdout, exit code, the recorded verdict and the commit's trailers.
import { statSync } from "node:fs";
import { join } from "node:path";
import { readDiff } from "../git/diffstream.js";
import { prefetchGit, runGit } from "../git/exec.js";
import { REPO_PROBE_ARGS } from "../git/probe.js";
import { indexFileAt } from "../git/index-tree.js";
import { headAt, indexChecksum, stagedKey } from "../git/staged-key.js";
import { parsePatch } from "../git/patch.js";
import { modeKind, type RawEntry } from "../git/raw.js";
import { compiledSource, type DetectorSourceSpec } from "../rules/detector-source.js";
import { Prefilter, type PrefilterSpec } from "../secrets/prefilter.js";
import { saveVerdict } from "../git/verdict-store.js";
import { cleanPassText } from "../report/text.js";
import { useColor } from "../report/color.js";
import { loadFastPathKey, type CompiledGlob } from "./fast-path-key.js";
import { gitDirAt } from "./git-dir.js";
import { fastPrepareCommitMsg } from "./fast-hook.js";
import { configEntries, handOffStaged } from "../git/handoff.js";
import { IGNORE_FILE } from "../secrets/ignore.js";
import { continuedUnit, DECODE_WORDS, decodedUnits, unescapedUnit } from "../secrets/units.js";

/** What the build embeds of rules/secrets.yaml: per detector, what the scan needs to even try it. */
export interface DetectorTrigger extends DetectorSourceSpec, PrefilterSpec {
  flags?: string;
}
declare const __KVGATE_DETECTORS__: DetectorTrigger[] | undefined;
declare const __KVGATE_BUILD__: string | undefined;

/** The secret scan skips larger files with a notice only the full path prints (docs/secrets.md). */
const SECRET_SCAN_MAX_BYTES = 5 * 1024 * 1024;

interface Triggers {
  prefilter: Prefilter;
  regexes: RegExp[];
  context: (readonly string[] | null)[];
}

/** Built on first use: a change the paths decline (a fleet file) never pays for the prefilter. */
function triggers(specs: readonly DetectorTrigger[]): () => Triggers {
  let built: Triggers | null = null;
  return () =>
    (built ??= {
      prefilter: new Prefilter(specs, DECODE_WORDS),
      regexes: specs.map((d) => new RegExp(compiledSource(d), d.flags ?? "")),
      context: specs.map((d) => d.file_context ?? null),
    });
}

/**
 * Every text the scan reads for these added lines (src/secrets/scan.ts): each line with a prefilter hit
 * (and with `\/` unescaped, and what a pull secret's base64 decodes to), and the line after one joined
 * to it. `hits`: those lines' indexes, ascending; `numbers`: the lines' numbers, in step (adjacent
 * lines are joined only when both are added).
 */
function readings(lines: readonly string[], hits: readonly number[], numbers: readonly number[]): string[] {
  const out: string[] = [];
  for (const i of hits) {
    const text = lines[i] as string;
    out.push(text);
    const unescaped = unescapedUnit(text);
    if (unescaped) out.push(unescaped.text);
    for (const u of decodedUnits(text)) out.push(u.text);
    const next = lines[i + 1];
    if (next !== undefined && numbers[i + 1] === (numbers[i] ?? 0) + 1) {
      const joined = continuedUnit(text, next);
      if (joined) out.push(joined.text);
    }
  }
  return out;
}

/** True when some detector could report on these added lines (the scan's own prefilter, then its regex). */
export function mayHoldSecret(added: readonly string[], t: Triggers, numbers: readonly number[] = []): boolean {
  if (added.length === 0) return false;
  // The scan reads nothing of a change where no added line has a hit (src/secrets/scan.ts).
  const hits = t.prefilter.candidates(added.length, (i) => added[i] as string);
  if (hits.length === 0) return false;
  const lines = readings(added, hits, numbers);
  // A context word is a prefilter word: only the lines with a hit can hold one.
  const lower = lines.map((l) => l.toLowerCase());
  for (const line of lines) {
    for (const k of t.prefilter.detectorsOn(line)) {
      const context = t.context[k];
      if (context && !context.some((c) => lower.some((l) => l.includes(c)))) continue;
      if ((t.regexes[k] as RegExp).test(line)) return true;
    }
  }
  return false;
}

/**
 * A YAML or JSON value that is a long base64 run (a Kubernetes Secret's `data`): the full scan decodes
 * it (src/secrets/decoded.ts), so a secret can hide in it from the keyword test above.
 */
const BASE64_VALUE = /^\s*"?[\w.-]+"?\s*:\s*["']?[A-Za-z0-9+/]{16,}={0,2}["']?\s*,?\s*$/;

export function mayHoldEncodedSecret(path: string, lines: readonly string[]): boolean {
  return /\.(ya?ml|json)$/i.test(path) && lines.some((l) => BASE64_VALUE.test(l));
}

/**
 * `check --staged` as the hooks call it (also `kvgate`, `kvgate check`, `kvgate --staged`: the same
 * run). Any other flag (format, config, repo, output, fail-on) is the full path's.
 */
export function isPlainStagedCheck(argv: readonly string[]): boolean {
  const rest = argv[0] === "check" ? argv.slice(1) : argv;
  return rest.length === 0 || (rest.length === 1 && rest[0] === "--staged");
}

/** A path matcher from globs picomatch compiled when the key was written: a path equal to a glob matches too. */
function matcher(globs: readonly string[], compiled: readonly CompiledGlob[]): (path: string) => boolean {
  const res = compiled.map((c) => new RegExp(c.source, c.flags));
  return (path) => globs.includes(path) || res.some((re) => re.test(path));
}

/** Why this change needs the full path, or null when the fast path decides it. */
export function fullPathReason(
  raw: readonly RawEntry[],
  patch: string,
  fleet: (path: string) => boolean,
  excluded: (path: string) => boolean,
  all: () => Triggers,
  sizeOf: (path: string) => number,
): string | null {
  const files = parsePatch(patch, { texts: true });
  for (const e of raw) {
    if (!"AMDRC".includes(e.status)) return `status ${e.status} of ${e.path}`;
    for (const mode of [e.oldMode, e.newMode]) {
      const kind = modeKind(mode);
      if (kind !== "file" && kind !== "absent") return `${kind} ${e.path}`;
    }
    for (const p of new Set([e.oldPath, e.path])) {
      if (fleet(p)) return `fleet path ${p}`;
      if (excluded(p)) return `secrets.exclude holds ${p}`;
    }
    if (e.status === "D") continue;
    const f = files.get(e.path);
    const texts = f?.texts ?? [];
    if (f?.binary || texts.some((t) => t.includes("\0"))) return `binary ${e.path}`;
    if (sizeOf(e.path) > SECRET_SCAN_MAX_BYTES) return `large ${e.path}`;
    if (texts.length > 0 && mayHoldSecret(texts, all(), f?.added ?? [])) return `possible secret in ${e.path}`;
    if (mayHoldEncodedSecret(e.path, texts)) return `base64 value in ${e.path}`;
  }
  return null;
}

/**
 * The whole fast path: the exit code when it decided, null when the full path must run. It never
 * throws: any failure (git's, the file system's, its own) is null, and the full path, which fails
 * closed, decides and reports it.
 */
export async function fastStagedCheck(argv: readonly string[], env: NodeJS.ProcessEnv, cwd: string): Promise<number | null> {
  if (env.KVGATE_FAST_PATH === "0" || !isPlainStagedCheck(argv)) return null;
  if (typeof __KVGATE_DETECTORS__ === "undefined" || typeof __KVGATE_BUILD__ === "undefined") return null;
  const gitDir = gitDirAt(cwd, env);
  if (!gitDir) return null;
  const stateDir = join(gitDir, "kvgate");
  const key = loadFastPathKey(stateDir, __KVGATE_BUILD__);
  if (!key) return null;
  try {
    const fleet = matcher(key.fleet, key.fleetRes);
    const excluded = matcher(key.exclude, key.excludeRes);
    const names = [...key.names, IGNORE_FILE];
    // Two git processes at once; the diff alone decides most declines, and a decline does not wait
    // for the other: it is handed to the full path as it runs.
    const diffRun = readDiff(cwd, ["--cached"]);
    // .kvgateignore too: the full path reads it, and then needs no lookup of its own.
    const configRun = runGit(cwd, ["ls-files", "-s", "-z", "--full-name", "--", ...names.map((n) => `:(top,literal)${n}`)]).then((r) =>
      r.code === 0 ? configEntries(r.stdout.toString("utf8"), names) : null,
    );
    // Awaited here or by the full path; never an unhandled rejection when the diff fails first.
    configRun.catch(() => undefined);
    const diff = await diffRun;
    if (env.KVGATE_TEST_FAULT === "fast-path") throw new Error("injected fault (KVGATE_TEST_FAULT=fast-path)");
    const handOff = (): void => handOffStaged({ root: cwd, diff, config: configRun.then((entries) => entries ?? new Map()) });
    // The index's size of a modified file is not in the diff: the worktree's stands in, and a file
    // that is large there takes the full path (which reads the index's and says what it skipped).
    const sizeOf = (p: string): number => {
      try {
        return statSync(join(cwd, p)).size;
      } catch {
        return 0;
      }
    };
    const why = fullPathReason(diff.raw, diff.patch, fleet, excluded, triggers(__KVGATE_DETECTORS__), sizeOf);
    if (why !== null) {
      // The full path follows: its first git commands start now and run while this process loads
      // the CLI (at 100,000 files the index listing alone is 70 ms of git).
      if (key.listings) {
        prefetchGit(cwd, REPO_PROBE_ARGS);
        for (const args of key.listings) prefetchGit(cwd, args);
      }
      handOff();
      if (env.KVGATE_DEBUG) {
        process.stderr.write(`kvgate: fast path: not taken (${why})\n`);
        if (key.listings) process.stderr.write(`kvgate: fast path: started rev-parse and ${key.listings.length} index listing(s) early\n`);
      }
      return null;
    }
    const entries = await configRun;
    const head = headAt(gitDir);
    if (entries === null || head === undefined) {
      handOff();
      return null;
    }
    if (configKey(entries, key.names) !== key.config) {
      handOff();
      if (env.KVGATE_DEBUG) process.stderr.write("kvgate: fast path: not taken (the config is not the one the key was recorded from)\n");
      return null;
    }
    if (env.KVGATE_DEBUG) process.stderr.write("kvgate: fast path: taken\n");
    const index = indexChecksum(indexFileAt(cwd, gitDir, env));
    saveVerdict(stateDir, {
      version: 2,
      key: stagedKey(head, diff.raw),
      index,
      verdict: "pass",
      at: new Date().toISOString(),
      allowed: [],
    });
    const checked = new Set(diff.raw.map((e) => e.path)).size;
    process.stdout.write(cleanPassText("staged", checked, useColor(process.stdout, env)));
    return 0;
  } catch {
    return null;
  }
}

/** The index's config entries as the key compares them: `name oid` lines of those present, sorted. */
function configKey(entries: ReadonlyMap<string, { oid: string } | null>, names: readonly string[]): string {
  return names
    .flatMap((name) => {
      const e = entries.get(name);
      return e ? [`${name} ${e.oid}`] : [];
    })
    .sort()
    .join("\n");
}

/**
 * Used by bin/kvgate.js: true when the fast path answered (exit code set), false to run the CLI. Both
 * hooks a commit runs are answered here: `check --staged` and `hook prepare-commit-msg`.
 */
export async function tryFastPath(): Promise<boolean> {
  const argv = process.argv.slice(2);
  const code =
    argv[0] === "hook"
      ? await fastPrepareCommitMsg(argv, process.env, process.cwd())
      : await fastStagedCheck(argv, process.env, process.cwd());
  if (code === null) return false;
  process.exitCode = code;
  return true;
}
