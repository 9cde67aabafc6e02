// The one door to files on disk (docs/gated-files.md#the-door): every file kvgate reads from a working
// tree or a plain folder (the `--all` listing's files, what the fleet loader asks for, a MODEL_CONFIG
// named anywhere) and every file it writes there (`check --fix`, `observe --write`, `init`) goes
// through here. A pull request is untrusted input, so:
// - a file is opened without following a final symlink and without blocking (O_NOFOLLOW | O_NONBLOCK),
//   then fstat'ed: only a regular file is read (a device such as /dev/zero, a FIFO or a socket is
//   refused before a byte is read, so nothing hangs);
// - a symlink, the file's own or a folder's on its way, is followed only when where it leads resolves
//   inside the repository; one that leads outside is refused and nothing of its target is read or named;
// - a read is capped (the caller's cap per kind of file, src/load/caps.ts): a file over it is refused
//   by its size before it is read, so a read is bounded in bytes and, being of a regular file, in time.
// It lives in git/ (the layer that reads the working tree for `--all`) so that git/disk.ts and the
// loader above it share it: imports only point down.
import {
  closeSync,
  constants,
  fchmodSync,
  fstatSync,
  ftruncateSync,
  lstatSync,
  mkdirSync,
  openSync,
  readSync,
  readlinkSync,
  realpathSync,
  writeSync,
} from "node:fs";
import { dirname, isAbsolute, join, normalize, relative, resolve, sep } from "node:path";
import { GateError } from "../errors.js";
import { formatBytes, formatInt } from "../units/bytes.js";

/** Why the door would not read a file: said in full (the file, what it is, the fix), never its bytes. */
export interface Refusal {
  refused: true;
  path: string;
  /** `<path> is a device, not a regular file: …`, for an error of its own. */
  message: string;
  /** The same about `the file`, with the fix: for a finding at the file (the loader's DecodedFile.problem). */
  problem: string;
  hint: string;
}

function refusal(path: string, what: string, hint: string): Refusal {
  return { refused: true, path, message: `${path} ${what}`, problem: `the file ${what}; ${hint}`, hint };
}

export function isRefusal(v: unknown): v is Refusal {
  return typeof v === "object" && v !== null && (v as Partial<Refusal>).refused === true;
}

/** The cap of one read: its bytes, and what kind of file it is for (named in the refusal). */
export interface Cap {
  bytes: number;
  kind: string;
}

const READ_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;
const ABSENT = new Set(["ENOENT", "ENOTDIR"]);
/** A system error code in words, for messages that name a file or folder that cannot be read. */
export const ERRNO_WHY: Readonly<Record<string, string>> = {
  EACCES: "permission denied",
  EPERM: "operation not permitted",
  EISDIR: "it is a folder",
  ELOOP: "too many levels of symlinks",
  EIO: "input/output error",
};

/** The message of a file over its cap, shared by the door and the loader's check of git blobs. */
export function tooBig(path: string, size: number, cap: Cap): Refusal {
  return refusal(
    path,
    `is ${formatBytes(size)} (${formatInt(size)} bytes), over the ${formatBytes(cap.bytes)} kvgate reads of ${cap.kind}`,
    `split ${path} into smaller files, or commit a smaller one (the caps: docs/gated-files.md#caps)`,
  );
}

function outside(path: string, how: string): Refusal {
  return refusal(
    path,
    `${how} leads outside the repository: kvgate does not follow it`,
    `commit the file itself at ${path} (a symlink is followed only to a file inside the repository)`,
  );
}

function special(path: string, what: string): Refusal {
  return refusal(path, `is ${what}, not a regular file: kvgate reads only regular files`, `commit ${path} as a regular file`);
}

/** What a non-regular file is, in words. */
function kindOf(st: { isCharacterDevice(): boolean; isBlockDevice(): boolean; isFIFO(): boolean; isSocket(): boolean }): string {
  if (st.isCharacterDevice() || st.isBlockDevice()) return "a device";
  if (st.isFIFO()) return "a FIFO (named pipe)";
  if (st.isSocket()) return "a socket";
  return "not a regular file";
}

/** `child` is `parent` or under it (both absolute, resolved). */
function isInside(parent: string, child: string): boolean {
  const rel = relative(parent, child);
  return rel === "" || (!rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel));
}

/** A relative path that stays in its folder, or null (`../x`, `/etc/x`). */
function contained(path: string): string | null {
  const rel = normalize(path);
  if (isAbsolute(rel) || rel === ".." || rel.startsWith(`..${sep}`) || rel.startsWith("../")) return null;
  return rel;
}

function unreadable(path: string, err: unknown): GateError {
  const code = String((err as NodeJS.ErrnoException).code ?? "");
  return new GateError(`${path} cannot be read: ${code || (err as Error).message}${ERRNO_WHY[code] ? ` (${ERRNO_WHY[code]})` : ""}`, {
    hint: `make ${path} readable by the user running kvgate (e.g. chmod a+r ${path}), or remove it from the folder being checked`,
    cause: err,
  });
}

/**
 * Reads an open regular file's bytes, at most `size + 1` (a file that grew past its cap is seen to).
 * A read that comes back short once the bytes fstat counted are in is the file's end: no second read
 * to be told so (one system call a file of `--all`'s 5,000 instead of two).
 */
function readOpen(fd: number, size: number, max: number): Buffer {
  const want = Math.min(size, max) + 1;
  const buf = Buffer.allocUnsafe(want);
  let got = 0;
  while (got < want) {
    const n = readSync(fd, buf, got, want - got, null);
    if (n === 0) break;
    got += n;
    if (got >= size && got < want) break;
  }
  return buf.subarray(0, got);
}

/**
 * The door of one folder: `root` is the repository (where a symlink may lead), `base` the folder the
 * paths are relative to (root itself, or a sub-folder `--repo` named). One per snapshot: what it learns
 * of the folders on the way (real, or a symlink, and where to) is kept.
 */
export class FileDoor {
  private realRoot: string | null = null;
  /** Folder (relative to base) → whether it is reached through a symlink. */
  private readonly linked = new Map<string, boolean>();

  constructor(
    private readonly root: string,
    private readonly base: string = root,
  ) {}

  private rootReal(): string {
    this.realRoot ??= safeRealpath(this.root) ?? resolve(this.root);
    return this.realRoot;
  }

  /** Whether a folder of the base (relative, `/`-separated, "" for the base) is, or lies in, a symlinked folder. */
  throughLink(folder: string): boolean {
    if (folder === "" || folder === ".") return false;
    const hit = this.linked.get(folder);
    if (hit !== undefined) return hit;
    const slash = folder.lastIndexOf("/");
    let linked = slash >= 0 && this.throughLink(folder.slice(0, slash));
    if (!linked) {
      try {
        linked = lstatSync(join(this.base, folder)).isSymbolicLink();
      } catch {
        linked = false;
      }
    }
    this.linked.set(folder, linked);
    return linked;
  }

  /**
   * A file's bytes; null when it is not there; a Refusal when it is a symlink leading outside the
   * repository, not a regular file, or over `cap`. A file that is there but cannot be read (a folder,
   * no permission) is a GateError: dropping it would check a fleet without it.
   */
  read(path: string, cap?: Cap): Buffer | null | Refusal {
    const rel = contained(path);
    if (rel === null) return outside(path, "names a path that");
    const slash = path.lastIndexOf("/");
    const viaLink = slash >= 0 && this.throughLink(path.slice(0, slash));
    let abs = join(this.base, rel);
    if (viaLink) {
      const real = safeRealpath(abs);
      if (real === null) return null;
      if (!isInside(this.rootReal(), real)) return outside(path, "is in a symlinked folder that");
      abs = real;
    }
    let fd: number;
    try {
      fd = openSync(abs, READ_FLAGS);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? "";
      if (ABSENT.has(code)) return null;
      if (code === "ENXIO") return special(path, "a socket");
      if (code !== "ELOOP") throw unreadable(path, err);
      // The file itself is a symlink: followed only to a file inside the repository.
      const real = safeRealpath(abs);
      if (real === null) return null;
      if (!isInside(this.rootReal(), real)) return outside(path, "is a symlink that");
      try {
        fd = openSync(real, READ_FLAGS);
      } catch (again) {
        const c = (again as NodeJS.ErrnoException).code ?? "";
        if (ABSENT.has(c)) return null;
        if (c === "ENXIO") return special(path, "a symlink to a socket");
        throw unreadable(path, again);
      }
    }
    try {
      const st = fstatSync(fd);
      if (st.isDirectory()) throw unreadable(path, Object.assign(new Error("EISDIR"), { code: "EISDIR" }));
      if (!st.isFile()) return special(path, kindOf(st));
      if (cap && st.size > cap.bytes) return tooBig(path, st.size, cap);
      const buf = readOpen(fd, st.size, cap?.bytes ?? Number.MAX_SAFE_INTEGER);
      if (cap && buf.length > cap.bytes) return tooBig(path, buf.length, cap);
      return buf;
    } finally {
      closeSync(fd);
    }
  }

  /**
   * Writes a file of the base (relative path), creating its folders: refused when the path leaves the
   * folder, when it (or a folder on its way) is a symlink that leads outside the repository, or when
   * it is there and not a regular file. GateError naming the file and the fix.
   */
  write(path: string, data: string | Buffer, mode?: number): void {
    const rel = contained(path);
    if (rel === null) throw refusedWrite(outside(path, "names a path that"));
    writeChecked(this.root, this.rootReal(), join(this.base, rel), path, data, mode, false);
  }
}

function refusedWrite(r: Refusal): GateError {
  return new GateError(`cannot write ${r.message.replace(/kvgate does not follow it/, "kvgate does not write through it")}`, {
    hint: r.hint.replace(/^commit the file itself/, "replace the symlink with the file itself"),
  });
}

function safeRealpath(abs: string): string | null {
  try {
    return realpathSync(abs);
  } catch {
    return null;
  }
}

/** Where a path leads once every symlink on it is followed, a dangling final link included. */
function resolvedTarget(abs: string): string {
  const real = safeRealpath(abs);
  if (real !== null) return real;
  // Not there (yet): its folder's real place, and the final name followed when it is a dangling link.
  const folder = safeRealpath(dirname(abs)) ?? resolvedTarget(dirname(abs));
  const name = join(folder, abs.slice(dirname(abs).length + 1));
  try {
    if (lstatSync(name).isSymbolicLink()) return resolve(folder, readlinkSync(name));
  } catch {
    // not there: a new file
  }
  return name;
}

/**
 * Writes `abs` unless a symlink takes it out of the repository: with `mayLeave` (a path a user typed)
 * a path outside the repository as typed is written as typed; a path inside it must stay inside once
 * every symlink on it is followed. Only a regular file (or a new one) is written, never a FIFO or device.
 */
function writeChecked(
  root: string,
  realRoot: string,
  abs: string,
  shown: string,
  data: string | Buffer,
  mode: number | undefined,
  mayLeave: boolean,
): void {
  const target = resolvedTarget(abs);
  const typedInside = isInside(resolve(root), resolve(abs)) || isInside(realRoot, resolve(abs));
  if (!isInside(realRoot, target) && !(mayLeave && !typedInside))
    throw refusedWrite(outside(shown, "is a symlink (or in a symlinked folder) that"));
  mkdirSync(dirname(target), { recursive: true });
  let fd: number;
  try {
    fd = openSync(target, constants.O_WRONLY | constants.O_CREAT | constants.O_NOFOLLOW | constants.O_NONBLOCK, mode ?? 0o666);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? "";
    if (code === "ENXIO") throw refusedWrite(special(shown, "a FIFO or socket"));
    if (code === "ELOOP") throw refusedWrite(outside(shown, "is a symlink that"));
    throw new GateError(`cannot write ${shown}: ${code || (err as Error).message}${ERRNO_WHY[code] ? ` (${ERRNO_WHY[code]})` : ""}`, {
      hint: `make ${shown} writable by the user running kvgate`,
      cause: err,
    });
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw refusedWrite(special(shown, kindOf(st)));
    const bytes = typeof data === "string" ? Buffer.from(data) : data;
    ftruncateSync(fd, 0);
    if (mode !== undefined) fchmodSync(fd, mode);
    let off = 0;
    while (off < bytes.length) off += writeSync(fd, bytes, off, bytes.length - off, off);
  } finally {
    closeSync(fd);
  }
}

/**
 * Writes a file a command names (absolute, or relative to the current folder) for a repository at
 * `root`: a path inside the repository follows the door's rules; a path the user typed outside it is
 * written as typed.
 */
export function writeNamedFile(root: string, file: string, data: string | Buffer, mode?: number): void {
  writeChecked(root, safeRealpath(root) ?? resolve(root), resolve(file), file, data, mode, true);
}

/**
 * Writes a file of the repository that holds it (`kvgate init`'s kvgate.yaml, workflow and hooks): the
 * repository is the nearest folder on the path with a `.git`, and a symlink in it that leads outside is
 * refused as the door refuses it.
 */
export function writeInRepository(file: string, data: string | Buffer, mode?: number): void {
  const abs = resolve(file);
  let root = dirname(abs);
  for (let dir = root; ; dir = dirname(dir)) {
    if (lstatOrNull(join(dir, ".git")) !== null) {
      root = dir;
      break;
    }
    if (dirname(dir) === dir) break;
  }
  writeNamedFile(root, abs, data, mode);
}

function lstatOrNull(abs: string): unknown {
  try {
    return lstatSync(abs);
  } catch {
    return null;
  }
}

/**
 * Reads a file a command names (`--baseline FILE`, `--config FILE`): a regular file only (a FIFO or a
 * device is refused at once, never waited on), at most `cap`; `flag` names it in the refusal. A file
 * that cannot be opened throws the system's error (with its `code`), for the caller's own message.
 */
export function readNamedFile(file: string, cap: Cap, flag: string): Buffer {
  let fd: number;
  try {
    // The user named this file: a symlink they typed is followed, but never to a device or a FIFO.
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENXIO")
      throw new GateError(`${flag} ${file}: it is a socket, not a regular file`, { hint: "name a regular file" });
    throw err;
  }
  try {
    const st = fstatSync(fd);
    if (st.isDirectory()) throw Object.assign(new Error(`EISDIR: ${file} is a folder`), { code: "EISDIR" });
    if (!st.isFile()) throw new GateError(`${flag} ${file}: it is ${kindOf(st)}, not a regular file`, { hint: "name a regular file" });
    const buf = st.size > cap.bytes ? null : readOpen(fd, st.size, cap.bytes);
    if (buf === null || buf.length > cap.bytes) {
      const r = tooBig(file, buf?.length ?? st.size, cap);
      throw new GateError(`${flag} ${r.message}`, { hint: `name a smaller ${cap.kind}` });
    }
    return buf;
  } finally {
    closeSync(fd);
  }
}
