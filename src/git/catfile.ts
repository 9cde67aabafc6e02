// Reads many objects with ONE `git cat-file --batch` process: a snapshot read of 5 or 5,000 files
// costs a single spawn. Names are object ids or `<rev>:<path>` / `:<path>` (the index).
//
// cat-file answers "missing" both for a path that is not there and for an object it cannot inflate
// (it says why on stderr only). An object id always comes from a tree or the index, so "missing"
// for one, or anything on stderr, means the repository is corrupt: never a file that is not there.
import { spawn } from "node:child_process";
import { GateError } from "../errors.js";
import { FIXED_CONFIG_ARGS, gitEnv, spawnFailure } from "./exec.js";

/** What cat-file said about one name. */
export type BatchAnswer = { kind: "blob"; bytes: Buffer } | { kind: "other" } | { kind: "missing" };

export const CORRUPT_HINT =
  "check the repository with `git fsck`; a missing object in a partial or shallow clone needs `git fetch --unshallow` or a full clone";

const OBJECT_ID = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

/** A full object id; the all-zero id stands for "no object" and is not one. */
export function isObjectId(name: string): boolean {
  return OBJECT_ID.test(name) && !/^0+$/.test(name);
}

/**
 * The GateError for an object that cannot be read. `path` is the file the caller wanted it for;
 * without one, a `<rev>:<path>` name says it. The object id is the name, or the one git's stderr names.
 */
export function corruptObject(name: string, path: string | undefined, stderr: string): GateError {
  const colon = name.indexOf(":");
  const file = path ?? (colon >= 0 ? name.slice(colon + 1) : undefined);
  const oid = isObjectId(name) ? name : (/\b([0-9a-f]{40}|[0-9a-f]{64})\b/.exec(stderr)?.[1] ?? name);
  const detail = stderr.trim().split("\n")[0];
  return new GateError(
    `the repository is corrupt: object ${oid}${file === undefined ? "" : ` for ${file}`} cannot be read; run git fsck${detail ? ` (git: ${detail})` : ""}`,
    { hint: CORRUPT_HINT, cause: stderr || undefined },
  );
}

/**
 * Each name maps to its blob's bytes, or null when a `<rev>:<path>` name has no blob there (absent,
 * or a tree). `paths` (name → file) only improves the message when an object cannot be read.
 */
export async function readBlobs(cwd: string, names: string[], paths?: ReadonlyMap<string, string>): Promise<Map<string, Buffer | null>> {
  const out = new Map<string, Buffer | null>();
  const unique = [...new Set(names)];
  if (unique.length === 0) return out;
  // `-z` (git >= 2.38) only when a path holds a newline, so older gits work for everything else.
  const nul = unique.some((n) => n.includes("\n"));
  const args = [...FIXED_CONFIG_ARGS, "cat-file", "--batch", ...(nul ? ["-z"] : [])];
  const { stdout, stderr } = await runBatch(cwd, args, unique.join(nul ? "\0" : "\n") + (nul ? "\0" : "\n"));
  const answers = parseBatch(stdout, unique.length);
  const bad = unique.find((name, i) => answers[i]?.kind === "missing" && (isObjectId(name) || stderr.trim() !== ""));
  if (bad !== undefined) throw corruptObject(bad, paths?.get(bad), stderr);
  if (stderr.trim() !== "") throw corruptObject(unique[0] as string, undefined, stderr);
  unique.forEach((name, i) => {
    const a = answers[i];
    out.set(name, a?.kind === "blob" ? a.bytes : null);
  });
  return out;
}

function runBatch(cwd: string, args: string[], input: string): Promise<{ stdout: Buffer; stderr: string }> {
  return new Promise((resolve, reject) => {
    let child;
    try {
      child = spawn("git", args, { cwd, env: gitEnv(), stdio: ["pipe", "pipe", "pipe"] });
    } catch (err) {
      reject(spawnFailure(cwd, err));
      return;
    }
    const chunks: Buffer[] = [];
    const errs: Buffer[] = [];
    let failed = false;
    child.stdout.on("data", (c: Buffer) => chunks.push(c));
    child.stderr.on("data", (c: Buffer) => errs.push(c));
    child.on("error", (err) => {
      failed = true;
      reject(spawnFailure(cwd, err));
    });
    // git may exit before reading all input (e.g. a corrupt repo); the close handler reports it.
    child.stdin.on("error", () => undefined);
    child.on("close", (code) => {
      if (failed) return;
      const stderr = Buffer.concat(errs).toString("utf8");
      if (code !== 0) {
        reject(new GateError(`git cat-file failed: ${stderr.trim().split("\n")[0] || `exit code ${code}`}`, { hint: CORRUPT_HINT, cause: stderr }));
      } else resolve({ stdout: Buffer.concat(chunks), stderr });
    });
    child.stdin.end(input);
  });
}

/** Parses `<oid> <type> <size>\n<bytes>\n` records and `<name> missing\n` lines, in request order. */
export function parseBatch(buf: Buffer, count: number): BatchAnswer[] {
  const result: BatchAnswer[] = [];
  let pos = 0;
  while (result.length < count && pos < buf.length) {
    const eol = buf.indexOf(0x0a, pos);
    if (eol < 0) throw new GateError("git cat-file: truncated output", { hint: CORRUPT_HINT });
    const header = buf.subarray(pos, eol).toString("utf8");
    pos = eol + 1;
    const m = /^[0-9a-f]+ (\S+) (\d+)$/.exec(header);
    if (!m) {
      // `missing`, `ambiguous`, or another non-object answer: it carries no content.
      result.push({ kind: "missing" });
      continue;
    }
    const size = Number(m[2]);
    if (pos + size > buf.length) throw new GateError("git cat-file: truncated output", { hint: CORRUPT_HINT });
    const body = buf.subarray(pos, pos + size);
    pos += size + 1;
    result.push(m[1] === "blob" ? { kind: "blob", bytes: Buffer.from(body) } : { kind: "other" });
  }
  if (result.length < count) throw new GateError(`git cat-file: ${count - result.length} of ${count} answers missing from its output`, { hint: CORRUPT_HINT });
  return result;
}
