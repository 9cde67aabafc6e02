// The staged change's identity, for the verdict `check --staged` records and the prepare-commit-msg
// hook reads (issue 28): HEAD and what the index changes against it (each path's modes and blob ids,
// as `git diff --cached --raw` says), so no `git write-tree` is needed to name it. Two runs with the
// same key checked the same staged tree. The index file's own checksum (its last bytes, which git
// writes) names it too, while git has not rewritten the index: the hook reads that without a process.
import { createHash } from "node:crypto";
import { closeSync, existsSync, fstatSync, openSync, readFileSync, readSync } from "node:fs";
import { join, resolve } from "node:path";
import type { RawEntry } from "./raw.js";

/** The key of a staged change: HEAD (null before the first commit) and the raw entries, in path order. */
export function stagedKey(head: string | null, raw: readonly RawEntry[]): string {
  const h = createHash("sha1").update(`kvgate-staged 1\0${head ?? "unborn"}\0`);
  const sorted = [...raw].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : a.oldPath < b.oldPath ? -1 : 1));
  for (const e of sorted) h.update(`${e.status}\0${e.oldMode}\0${e.newMode}\0${e.oldOid}\0${e.newOid}\0${e.oldPath}\0${e.path}\0`);
  return h.digest("hex");
}

/** The index file's trailing checksum (hex), or null when absent, unreadable or not written (index.skipHash). */
export function indexChecksum(indexFile: string): string | null {
  let fd: number;
  try {
    fd = openSync(indexFile, "r");
  } catch {
    return null;
  }
  try {
    const size = fstatSync(fd).size;
    // SHA-1's 20 bytes; a SHA-256 index ends with 32, whose last 20 name it as well.
    if (size < 32) return null;
    const tail = Buffer.alloc(20);
    readSync(fd, tail, 0, 20, size - 20);
    return tail.every((b) => b === 0) ? null : tail.toString("hex");
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}

const OID = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/;

/**
 * HEAD's commit id read from the git dir's files (no process): a detached HEAD, or a branch's loose
 * or packed ref. null: an unborn branch. undefined: anything else (a reftable, a symbolic ref to a
 * symbolic ref, a read error), which the caller leaves to git.
 */
export function headAt(gitDir: string): string | null | undefined {
  try {
    const head = readFileSync(join(gitDir, "HEAD"), "utf8").trim();
    if (OID.test(head)) return head;
    const m = /^ref: (refs\/[^\s]+)$/.exec(head);
    if (!m) return undefined;
    const ref = m[1] as string;
    const commonFile = join(gitDir, "commondir");
    const common = existsSync(commonFile) ? resolve(gitDir, readFileSync(commonFile, "utf8").trim()) : gitDir;
    if (existsSync(join(common, "reftable"))) return undefined;
    for (const dir of ref.startsWith("refs/heads/") ? [common] : [gitDir, common]) {
      try {
        const loose = readFileSync(join(dir, ref), "utf8").trim();
        return OID.test(loose) ? loose : undefined;
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== "ENOENT") return undefined;
      }
    }
    let packed = "";
    try {
      packed = readFileSync(join(common, "packed-refs"), "utf8");
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "ENOENT") return undefined;
    }
    for (const line of packed.split("\n")) {
      const [oid, name] = line.split(" ");
      if (name === ref && oid !== undefined && OID.test(oid)) return oid;
    }
    return null;
  } catch {
    return undefined;
  }
}
