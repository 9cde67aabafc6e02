// Makes a shallow clone hold the history a range needs: the commits themselves, their merge base,
// and every parent the per-commit diffs read. It fetches missing commits by sha, then deepens,
// doubling each round; if that is not enough it fails with the fix, never passing on a cut history.
import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { GateError } from "../errors.js";
import { remoteGitRunner, type GitRunner } from "../git/exec.js";

const FETCH_DEPTH_HINT = "check out the full history: `actions/checkout` with `fetch-depth: 0`";

export interface HistoryNeed {
  /** null: gate `head` alone (its parent must be present). */
  base: string | null;
  head: string;
  /** Gate from the merge base of base and head (a pull request) instead of from base. */
  mergeBase: boolean;
}

export interface HistoryOptions {
  log(message: string): void;
  /** Commits of the first deepening round; each later round doubles it. */
  firstDepth?: number;
  rounds?: number;
}

interface State {
  missing: string[];
  /** The commit to gate from (null: head alone); undefined when it cannot be known yet. */
  from: string | null | undefined;
  /** A commit of the range whose parents the clone cut off. */
  cut: string | null;
}

async function has(git: GitRunner, rev: string): Promise<boolean> {
  return (await git.tryRun(["rev-parse", "--verify", "-q", `${rev}^{commit}`]))?.trim() ? true : false;
}

async function shallowSet(git: GitRunner): Promise<Set<string>> {
  const path = resolve(git.cwd, (await git.run(["rev-parse", "--git-path", "shallow"])).trim());
  const text = await readFile(path, "utf8").catch(() => "");
  return new Set(
    text
      .split("\n")
      .map((l) => l.trim())
      .filter(Boolean),
  );
}

async function isShallow(git: GitRunner): Promise<boolean> {
  return (await git.run(["rev-parse", "--is-shallow-repository"])).trim() === "true";
}

async function inspect(git: GitRunner, need: HistoryNeed): Promise<State> {
  const missing: string[] = [];
  for (const rev of [need.head, need.base]) if (rev !== null && !(await has(git, rev))) missing.push(rev);
  if (missing.length > 0) return { missing, from: undefined, cut: null };
  let from: string | null = null;
  if (need.base !== null) {
    from = need.mergeBase ? (await git.tryRun(["merge-base", need.base, need.head]))?.trim() || null : need.base;
    if (from === null) return { missing, from: undefined, cut: null };
  }
  const edge = await shallowSet(git);
  const commits = from === null ? [need.head] : (await git.run(["rev-list", `${from}..${need.head}`])).split("\n").filter(Boolean);
  return { missing, from, cut: commits.find((c) => edge.has(c)) ?? null };
}

function describe(need: HistoryNeed, s: State): string {
  if (s.missing.length > 0) return `commit ${s.missing.map((m) => m.slice(0, 12)).join(" and ")} is not in this clone`;
  if (s.from === undefined) return `${need.base?.slice(0, 12)} and ${need.head.slice(0, 12)} have no merge base in this clone`;
  return `the history below commit ${s.cut?.slice(0, 12)} is cut off by the shallow clone`;
}

/** Returns the commit to gate from (null: head alone) once the clone holds everything. */
export async function ensureHistory(dir: string, need: HistoryNeed, opts: HistoryOptions): Promise<string | null> {
  const git = remoteGitRunner(dir);
  let depth = opts.firstDepth ?? 50;
  const rounds = opts.rounds ?? 6;
  for (let round = 0; ; round++) {
    const s = await inspect(git, need);
    if (s.missing.length === 0 && s.from !== undefined && s.cut === null) return s.from;
    if (!(await isShallow(git))) {
      throw new GateError(`${describe(need, s)}, and the clone is complete`, {
        hint:
          s.missing.length > 0
            ? "the commit may have been force-pushed away; set the base input to a commit that exists"
            : "the two commits share no history; set the base input",
      });
    }
    if (round >= rounds) {
      throw new GateError(`${describe(need, s)}, even after deepening it ${rounds} times`, { hint: FETCH_DEPTH_HINT });
    }
    if (s.missing.length > 0) {
      for (const sha of s.missing) {
        opts.log(`kvgate: fetching ${sha.slice(0, 12)} (depth ${depth}) into the shallow clone`);
        await git.tryRun(["fetch", "--no-tags", "--quiet", `--depth=${depth}`, "origin", sha]);
      }
    } else {
      opts.log(`kvgate: ${describe(need, s)}; deepening by ${depth} commits`);
      const wants = [need.head, ...(need.base ? [need.base] : [])];
      if ((await git.tryRun(["fetch", "--no-tags", "--quiet", `--deepen=${depth}`, "origin", ...wants])) === null) {
        await git.tryRun(["fetch", "--no-tags", "--quiet", `--deepen=${depth}`, "origin"]);
      }
    }
    depth *= 2;
  }
}

/** The tip of origin/<branch>, fetched if the clone lacks it; null when the remote has no such branch. */
export async function remoteBranchTip(dir: string, branch: string, log: (m: string) => void): Promise<string | null> {
  const git = remoteGitRunner(dir);
  const ref = `refs/remotes/origin/${branch}`;
  const tip = async () => (await git.tryRun(["rev-parse", "--verify", "-q", `${ref}^{commit}`]))?.trim() || null;
  const known = await tip();
  if (known) return known;
  log(`kvgate: fetching origin/${branch} to find the commits not on it`);
  const depth = (await isShallow(git)) ? ["--depth=50"] : [];
  await git.tryRun(["fetch", "--no-tags", "--quiet", ...depth, "origin", `+refs/heads/${branch}:${ref}`]);
  return tip();
}
