// The working tree's files as `check --fix` reads and writes them: the loader's one door for a write.
// Paths are repository-relative; a path that leaves the folder is refused, never followed.
import { readFile, writeFile } from "node:fs/promises";
import { isAbsolute, join, normalize } from "node:path";

function inside(base: string, path: string): string {
  const rel = normalize(path);
  if (isAbsolute(rel) || rel === ".." || rel.startsWith("../")) throw new Error(`${path} is outside the repository`);
  return join(base, rel);
}

/** The text of a working-tree file. */
export async function readWorkingFile(base: string, path: string): Promise<string> {
  return readFile(inside(base, path), "utf8");
}

/** Writes a working-tree file's new text. */
export async function writeWorkingFile(base: string, path: string, text: string): Promise<void> {
  await writeFile(inside(base, path), text);
}
