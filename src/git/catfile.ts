// Reads many objects with ONE `git cat-file --batch` process: a snapshot read of 5 or 5,000 files
// costs a single spawn. Names are object ids or `<rev>:<path>` / `:<path>` (the index).
import { spawn } from "node:child_process";
import { GateError } from "../errors.js";
import { FIXED_CONFIG_ARGS, gitEnv } from "./exec.js";

/** Each name maps to its blob's bytes, or null when missing or not a blob. */
export async function readBlobs(cwd: string, names: string[]): Promise<Map<string, Buffer | null>> {
  const out = new Map<string, Buffer | null>();
  const unique = [...new Set(names)];
  if (unique.length === 0) return out;
  // `-z` (git >= 2.38) only when a path holds a newline, so older gits work for everything else.
  const nul = unique.some((n) => n.includes("\n"));
  const args = [...FIXED_CONFIG_ARGS, "cat-file", "--batch", ...(nul ? ["-z"] : [])];
  const stdout = await runBatch(cwd, args, unique.join(nul ? "\0" : "\n") + (nul ? "\0" : "\n"));
  const blobs = parseBatch(stdout, unique.length);
  unique.forEach((name, i) => out.set(name, blobs[i] ?? null));
  return out;
}

function runBatch(cwd: string, args: string[], input: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const fail = (why: string, cause: unknown): void =>
      reject(new GateError(`git cat-file failed: ${why}`, { cause }));
    let child;
    try {
      child = spawn("git", args, { cwd, env: gitEnv(), stdio: ["pipe", "pipe", "pipe"] });
    } catch (err) {
      fail(String(err), err);
      return;
    }
    const chunks: Buffer[] = [];
    const errs: Buffer[] = [];
    child.stdout.on("data", (c: Buffer) => chunks.push(c));
    child.stderr.on("data", (c: Buffer) => errs.push(c));
    child.on("error", (err) => fail(err.message, err));
    // git may exit before reading all input (e.g. a corrupt repo); the close handler reports it.
    child.stdin.on("error", () => undefined);
    child.on("close", (code) => {
      const stderr = Buffer.concat(errs).toString("utf8");
      if (code !== 0) fail(stderr.trim().split("\n")[0] || `exit code ${code}`, stderr);
      else resolve(Buffer.concat(chunks));
    });
    child.stdin.end(input);
  });
}

/** Parses `<oid> <type> <size>\n<bytes>\n` records and `<name> missing\n` lines, in request order. */
export function parseBatch(buf: Buffer, count: number): (Buffer | null)[] {
  const result: (Buffer | null)[] = [];
  let pos = 0;
  while (result.length < count && pos < buf.length) {
    const eol = buf.indexOf(0x0a, pos);
    if (eol < 0) throw new GateError("git cat-file: truncated output");
    const header = buf.subarray(pos, eol).toString("utf8");
    pos = eol + 1;
    const m = /^[0-9a-f]+ (\S+) (\d+)$/.exec(header);
    if (!m) {
      // `missing`, `ambiguous`, or another non-object answer: it carries no content.
      result.push(null);
      continue;
    }
    const size = Number(m[2]);
    const body = buf.subarray(pos, pos + size);
    pos += size + 1;
    result.push(m[1] === "blob" ? Buffer.from(body) : null);
  }
  return result;
}
