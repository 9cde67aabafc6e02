// The temp folders kvgate makes (git's big-diff spill, the index copy write-tree runs on, usage's
// in-flight sort runs): a pull request's 30 MB diff must not leave 30 MB in /tmp when CI kills the run
// on a timeout. Each folder is named kvgate-<kind>-<pid>-XXXXXX and removed when its user is done, at
// exit, and on SIGINT and SIGTERM (one handler for all of them, which then dies of the signal); one that
// a run killed outright (SIGKILL, a crash) left behind is removed by the next run that makes a folder of
// that kind, once its process is gone. Nothing here runs on the hook's fast path unless it spills.
import { mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A folder whose process is gone is stale; so is one older than this (the pid may be reused). */
const STALE_MS = 24 * 3600 * 1000;
/** A folder named before the pid was in the name (kvgate-spill-XXXXXX): stale once it is an hour old. */
const PIDLESS_STALE_MS = 3600 * 1000;
const SIGNALS = ["SIGINT", "SIGTERM"] as const;
const NAMED = /^kvgate-(spill|index|inflight)-(?:(\d+)-)?[A-Za-z0-9]{6}$/;

export interface TempFolder {
  readonly path: string;
  /** Removes the folder (and stops guarding it). */
  dispose(): void;
}

const live = new Set<string>();
let guarded = false;

function removeLive(): void {
  // A git child may still be writing into a folder as it goes: retry the few errors that race gives.
  for (const p of live) {
    try {
      rmSync(p, { recursive: true, force: true, maxRetries: 3, retryDelay: 10 });
    } catch {
      // Left for the next run's stale sweep: a signal handler must still die of its signal.
    }
  }
  live.clear();
}

function onSignal(signal: NodeJS.Signals): void {
  removeLive();
  for (const s of SIGNALS) process.removeListener(s, onSignal);
  // Die of the signal as if no handler were installed; a process that inherited the signal as ignored
  // (started in the background) is not killed by it: it exits as a shell would say, 128 + n.
  process.kill(process.pid, signal);
  process.exit(128 + (signal === "SIGINT" ? 2 : 15));
}

function guard(): void {
  if (guarded) return;
  guarded = true;
  for (const s of SIGNALS) process.on(s, onSignal);
  process.once("exit", removeLive);
}

/** Makes kvgate-<kind>-<pid>-XXXXXX under `root`, guarded until disposed. `cleanStale` first removes what killed runs left. */
export function makeTempFolder(kind: "spill" | "index" | "inflight", opts: { root?: string; cleanStale?: boolean } = {}): TempFolder {
  const root = opts.root ?? tmpdir();
  if (opts.cleanStale) cleanStaleTemp(root);
  // The handlers go in before the folder exists: a signal between the two would otherwise meet no handler
  // and kill the process with the folder left (it is queued for the event loop once a handler is in).
  guard();
  const path = mkdtempSync(join(root, `kvgate-${kind}-${process.pid}-`));
  live.add(path);
  return {
    path,
    dispose() {
      live.delete(path);
      rmSync(path, { recursive: true, force: true });
    },
  };
}

/** Removes the temp folders of kvgate processes that are gone; returns their paths. */
export function cleanStaleTemp(dir: string = tmpdir(), now: number = Date.now()): string[] {
  const removed: string[] = [];
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return removed;
  }
  for (const name of names) {
    const m = NAMED.exec(name);
    if (!m) continue;
    const path = join(dir, name);
    let stale: boolean;
    try {
      const age = now - statSync(path).mtimeMs;
      stale = m[2] !== undefined ? !alive(Number(m[2])) || age > STALE_MS : age > PIDLESS_STALE_MS;
    } catch {
      continue;
    }
    if (!stale || live.has(path)) continue;
    rmSync(path, { recursive: true, force: true });
    removed.push(path);
  }
  return removed;
}

function alive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}
