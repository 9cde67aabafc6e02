// Globs (the policy's picomatch globs: `scripts/*.env`, `playbooks/**/*.yaml`) turned into what git
// can narrow a listing by: the literal folders they start with. git then lists only under those
// folders (cost in the size of the folders, not of the repository), and the glob itself decides.
import picomatch from "picomatch";

export interface GlobFilter {
  /** Literal folders (or files) every match lies under, relative, without a trailing `/`; "" = anywhere. */
  folders: string[];
  matches: (path: string) => boolean;
}

/** Characters that make the rest of a glob a pattern (picomatch's syntax, braces and extglobs included). */
const MAGIC = /[*?[\]{}()!+@\\]/;

/** The literal leading folder of a glob; "" when it can match anywhere. */
function literalBase(glob: string): string {
  const { base, prefix, negated } = picomatch.scan(glob);
  if (negated || prefix !== "" || base.startsWith("/")) return "";
  const magic = MAGIC.exec(base);
  const literal = magic ? base.slice(0, Math.max(0, base.lastIndexOf("/", magic.index))) : base;
  return literal.split("/").some((s) => s === ".." || s === ".") ? "" : literal;
}

/** Matches as `picomatch(glob, { dot: true })` does (the glob itself included), any of the globs. */
export function globFilter(globs: readonly string[]): GlobFilter {
  const res = globs.map((g) => picomatch.makeRe(g, { dot: true }));
  const bases = [...new Set(globs.map(literalBase))].sort();
  // A folder inside another one adds nothing; "" (anywhere) covers them all.
  const folders = bases.includes("") ? [""] : bases.filter((b, i) => !bases.slice(0, i).some((a) => b.startsWith(`${a}/`)));
  return {
    folders,
    matches: (path) => globs.includes(path) || res.some((re) => re.test(path)),
  };
}

/** True when `path` lies under one of the folders (or is one of them). */
export function isUnder(path: string, folders: readonly string[]): boolean {
  return folders.some((f) => f === "" || path === f || path.startsWith(`${f}/`));
}
