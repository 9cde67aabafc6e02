// The services glob that matches a set of env files: `deploy/*.env` for one folder, a brace list for
// several (`{deploy,hosts/a}/*.env`). What `kvgate init` writes and fleet/no-services advises.

export function envGlobFor(paths: readonly string[]): string | null {
  const dirs = [...new Set(paths.map((p) => (p.includes("/") ? p.slice(0, p.lastIndexOf("/")) : "")))].sort();
  if (dirs.length === 0) return null;
  if (dirs.length === 1) return dirs[0] === "" ? "*.env" : `${dirs[0]}/*.env`;
  // A file at the top level joins the brace list as an empty alternative: `{,deploy}/*.env` would
  // match `/x.env`, so the top level is spelled as its own `*.env` alternative instead.
  const nested = dirs.filter((d) => d !== "");
  const top = dirs.includes("") ? ["*.env"] : [];
  return `{${[...top, ...nested.map((d) => `${d}/*.env`)].join(",")}}`;
}
