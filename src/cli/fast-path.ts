// The pre-commit hook's fast path: `kvgate check --staged` on a change that cannot touch the fleet.
// One `git diff` says what is staged (with `write-tree` for the verdict's key and `ls-files` for the
// config's identity started beside it). When no staged path can change the fleet or the policy and
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
import { indexFileAt, writeTreeOf } from "../git/index-tree.js";
import { parsePatch } from "../git/patch.js";
import { modeKind, type RawEntry } from "../git/raw.js";
import { compiledSource, type DetectorSourceSpec } from "../rules/detector-source.js";
import { saveVerdict } from "../git/verdict-store.js";
import { cleanPassText } from "../report/text.js";
import { useColor } from "../report/color.js";
import { loadFastPathKey, type CompiledGlob } from "./fast-path-key.js";
import { gitDirAt } from "./git-dir.js";
import { fastPrepareCommitMsg } from "./fast-hook.js";
import { configEntries, handOffStaged } from "../git/handoff.js";
import { IGNORE_FILE } from "../secrets/ignore.js";
import { continuedUnit, decodedUnits, unescapedUnit } from "../secrets/units.js";

/** What the build embeds of rules/secrets.yaml: per detector, what the scan needs to even try it. */
export interface DetectorTrigger extends DetectorSourceSpec {
  keywords: string[];
  flags?: string;
  file_context?: string[];
}
declare const __KVGATE_DETECTORS__: DetectorTrigger[] | undefined;
declare const __KVGATE_BUILD__: string | undefined;

/** The secret scan skips larger files with a notice only the full path prints (docs/secrets.md). */
const SECRET_SCAN_MAX_BYTES = 5 * 1024 * 1024;

interface Trigger {
  keywords: string[];
  regex: RegExp;
  context: string[] | null;
}

function triggers(specs: readonly DetectorTrigger[]): Trigger[] {
  return specs.map((d) => ({ keywords: d.keywords, regex: new RegExp(compiledSource(d), d.flags ?? ""), context: d.file_context ?? null }));
}

/**
 * Every text the scan reads for these added lines (src/secrets/scan.ts): each line (with `\/`
 * unescaped), a line joined to the added line just before it, what a pull secret's base64 decodes
 * to. `numbers`: the lines' numbers, in step (adjacent lines are joined only when both are added).
 */
function readings(lines: readonly string[], numbers: readonly number[]): string[] {
  const out: string[] = [];
  lines.forEach((text, i) => {
    out.push(text);
    const unescaped = unescapedUnit(text);
    if (unescaped) out.push(unescaped.text);
    const prev = lines[i - 1];
    if (prev !== undefined && numbers[i - 1] === (numbers[i] ?? 0) - 1) {
      const joined = continuedUnit(prev, text);
      if (joined) out.push(joined.text);
    }
    for (const u of decodedUnits(text)) out.push(u.text);
  });
  return out;
}

/** True when some detector could report on these added lines (the scan's own prefilter, then its regex). */
export function mayHoldSecret(added: readonly string[], all: readonly Trigger[], numbers: readonly number[] = []): boolean {
  const lines = readings(added, numbers);
  const lower = lines.map((l) => l.toLowerCase());
  for (const t of all) {
    if (t.context && !t.context.some((c) => lower.some((l) => l.includes(c)))) continue;
    for (let i = 0; i < lines.length; i++) {
      const l = lower[i] as string;
      if (t.keywords.some((k) => l.includes(k)) && t.regex.test(lines[i] as string)) return true;
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
  all: readonly Trigger[],
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
    if (mayHoldSecret(texts, all, f?.added ?? [])) return `possible secret in ${e.path}`;
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
    // Three git processes at once; the diff alone decides most declines, and a decline does not wait
    // for the other two: they are handed to the full path as they run (write-tree rebuilds the trees
    // the index's cache lacks, 50–110 ms at 100,000 files, while the CLI loads on the other core).
    const diffRun = readDiff(cwd, ["--cached"]);
    const treeRun = writeTreeOf(cwd, indexFileAt(cwd, gitDir, env));
    // .kvgateignore too: the full path reads it, and then needs no lookup of its own.
    const configRun = runGit(cwd, ["ls-files", "-s", "-z", "--full-name", "--", ...names.map((n) => `:(top,literal)${n}`)]).then((r) =>
      r.code === 0 ? configEntries(r.stdout.toString("utf8"), names) : null,
    );
    // Awaited here or by the full path; never an unhandled rejection when the diff fails first.
    treeRun.catch(() => undefined);
    configRun.catch(() => undefined);
    const diff = await diffRun;
    if (env.KVGATE_TEST_FAULT === "fast-path") throw new Error("injected fault (KVGATE_TEST_FAULT=fast-path)");
    const handOff = (): void =>
      handOffStaged({ root: cwd, diff, tree: treeRun, config: configRun.then((entries) => entries ?? new Map()) });
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
    const [treeId, entries] = await Promise.all([treeRun, configRun]);
    if (entries === null) return null;
    if (configKey(entries, key.names) !== key.config) {
      handOff();
      if (env.KVGATE_DEBUG) process.stderr.write("kvgate: fast path: not taken (the config is not the one the key was recorded from)\n");
      return null;
    }
    if (env.KVGATE_DEBUG) process.stderr.write("kvgate: fast path: taken\n");
    saveVerdict(stateDir, treeId, { version: 1, tree: treeId, verdict: "pass", at: new Date().toISOString(), allowed: [] });
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
