// globFilter's `matches` (src/git/globs.ts) tests a path against every glob at once (one regex of
// their alternatives): it must answer exactly as testing each glob's picomatch regex does, plus the
// glob itself as a literal path, on the fleet's own globs and on generated ones.
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import picomatch from "picomatch";
import { globFilter } from "../../src/git/globs.js";
import { listingGlobs } from "../../src/load/fleet-globs.js";
import { PLAYBOOK_LISTING_GLOBS } from "../../src/load/playbooks.js";
import { loadPolicy } from "../../src/config/load.js";
import { loadPack } from "../../src/rules/load.js";

/** The answer glob by glob, as globFilter gave it before the globs were joined. */
const oneByOne =
  (globs: readonly string[]) =>
  (path: string): boolean =>
    globs.includes(path) || globs.some((g) => picomatch.makeRe(g, { dot: true }).test(path));

const FLEET_GLOBS = [...listingGlobs(loadPolicy(null, "kvgate.yaml", loadPack())), ...PLAYBOOK_LISTING_GLOBS];
const PATHS = [
  "scripts/a.env",
  "scripts/sub/a.env",
  "src/mod0/file1.ts",
  "docker-compose.yml",
  "deploy/compose.prod.yaml",
  "k8s/app/deploy.yaml",
  "charts/vllm/values-prod.yaml",
  "etc/systemd/vllm.service",
  "playbooks/site.yml",
  "roles/vllm/templates/env.j2",
  "group_vars/all.yml",
  "inventory/hosts",
  "ansible.cfg",
  ".hidden/x.service",
  "a/../b.service",
  "kvgate.yaml",
  "README.md",
];

describe("globFilter matches as its globs one by one", () => {
  it("on the fleet's default globs, and the grid is not trivial", () => {
    const f = globFilter(FLEET_GLOBS);
    const theirs = oneByOne(FLEET_GLOBS);
    expect(PATHS.map((p) => f.matches(p))).toEqual(PATHS.map(theirs));
    expect(PATHS.filter((p) => f.matches(p)).length).toBeGreaterThan(5);
    expect(PATHS.filter((p) => !f.matches(p))).toEqual(expect.arrayContaining(["src/mod0/file1.ts", "README.md"]));
  });

  it("on generated globs and paths (braces, classes, extglobs, negation, ** and literal names)", () => {
    const seg = fc.constantFrom("scripts", "k8s", "a", "b.env", "x.yml", ".h", "values-1.yaml", "ü", "a b", "deploy");
    const part = fc.constantFrom("*", "**", "?", "*.env", "{a,b}", "[ab]*", "@(x|y).yml", "!(a)", "*.{yml,yaml}", "a", "scripts", ".h");
    const glob = fc
      .tuple(fc.boolean(), fc.array(part, { minLength: 1, maxLength: 4 }))
      .map(([neg, ps]) => `${neg ? "!" : ""}${ps.join("/")}`);
    const path = fc.array(seg, { minLength: 1, maxLength: 4 }).map((s) => s.join("/"));
    let matched = 0;
    fc.assert(
      fc.property(fc.array(glob, { minLength: 1, maxLength: 6 }), fc.array(path, { minLength: 1, maxLength: 10 }), (globs, paths) => {
        const f = globFilter(globs);
        const theirs = oneByOne(globs);
        expect(paths.map((p) => f.matches(p))).toEqual(paths.map(theirs));
        matched += paths.filter((p) => f.matches(p)).length;
      }),
      { numRuns: 400 },
    );
    expect(matched).toBeGreaterThan(100);
  });
});
