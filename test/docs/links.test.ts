// Every relative link of the docs (README.md, CONTRIBUTING.md, docs/**) names a file of the repository,
// and every #anchor one its target has: an explicit <a id="…"> or a heading's GitHub slug; so does every
// docs/ page a comment of src/ cites. A rule page links its reference section: a renamed anchor fails here.
import { describe, expect, test } from "vitest";
import { existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import { dirname, join, normalize } from "node:path";

const pages = ["README.md", "CONTRIBUTING.md", ...readdirSync("docs", { recursive: true }).map((f) => join("docs", String(f)))].filter(
  (f) => f.endsWith(".md") && existsSync(f),
);

/** GitHub's anchor for a heading: lowercase, punctuation dropped (but - and _), spaces as -. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");
}

const anchorsCache = new Map<string, Set<string>>();
function anchorsOf(file: string): Set<string> {
  let set = anchorsCache.get(file);
  if (!set) {
    const text = readFileSync(file, "utf8").replace(/^```[\s\S]*?^```/gm, "");
    set = new Set([...text.matchAll(/<a id="([^"]+)"><\/a>/g)].map((m) => m[1] as string));
    for (const m of text.matchAll(/^#{1,6} (.+)$/gm)) set.add(slug(m[1] as string));
    anchorsCache.set(file, set);
  }
  return set;
}

function linksOf(file: string): string[] {
  const text = readFileSync(file, "utf8")
    .replace(/^```[\s\S]*?^```/gm, "")
    .replace(/`[^`\n]*`/g, "");
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1] as string).filter((l) => !/^[a-z]+:/.test(l));
}

describe("docs links", () => {
  test.each(pages)("%s: every relative link and anchor resolves", (file) => {
    const broken: string[] = [];
    for (const link of linksOf(file)) {
      const [path = "", anchor] = link.split("#");
      const target = path === "" ? file : normalize(join(dirname(file), path));
      if (!existsSync(target)) broken.push(`${link}: no file ${target}`);
      else if (anchor !== undefined && statSync(target).isFile() && target.endsWith(".md") && !anchorsOf(target).has(anchor))
        broken.push(`${link}: no anchor #${anchor} in ${target}`);
    }
    expect(broken).toEqual([]);
  });

  // A comment that cites the reference (`docs/radiance.md#funding`) names a page and an anchor that exist.
  test("every docs/ page and anchor a comment under src/ cites exists", () => {
    const walk = (dir: string): string[] =>
      readdirSync(dir).flatMap((n) =>
        statSync(join(dir, n)).isDirectory() ? walk(join(dir, n)) : n.endsWith(".ts") ? [join(dir, n)] : [],
      );
    const broken: string[] = [];
    for (const file of walk("src"))
      for (const m of readFileSync(file, "utf8").matchAll(/\bdocs\/([\w/-]+\.md)(?:#([\w-]+))?/g)) {
        const target = join("docs", m[1] as string);
        if (!existsSync(target)) broken.push(`${file}: ${m[0]}: no ${target}`);
        else if (m[2] !== undefined && !anchorsOf(target).has(m[2])) broken.push(`${file}: ${m[0]}: no anchor #${m[2]}`);
      }
    expect(broken).toEqual([]);
  });

  test("the map of the specification's sections covers sections 1 to 18", () => {
    const map = readFileSync("docs/README.md", "utf8").split('<a id="contract-map"></a>')[1] ?? "";
    const sections = new Set([...map.matchAll(/^\| (\d+) \|/gm)].map((m) => Number(m[1])));
    expect([...sections].sort((a, b) => a - b)).toEqual(Array.from({ length: 18 }, (_, i) => i + 1));
  });
});
