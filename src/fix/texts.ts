// The text of each file the findings' value fixes edit, read from the tree that was checked: what a
// SARIF replacement is measured against.
import type { Finding } from "../model/types.js";
import type { Snapshot } from "../git/types.js";
import { fixListOf } from "./collect.js";

export async function fixFileTexts(findings: readonly Finding[], tree: Pick<Snapshot, "read">): Promise<Map<string, string>> {
  const paths = [...new Set(findings.filter((f) => f.status === "open").flatMap((f) => fixListOf(f).map((x) => x.file)))];
  const texts = new Map<string, string>();
  if (paths.length === 0) return texts;
  for (const [path, buf] of await tree.read(paths)) if (buf !== null) texts.set(path, buf.toString("utf8"));
  return texts;
}
