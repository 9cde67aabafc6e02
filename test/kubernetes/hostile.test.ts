// A manifest is a file a pull request writes: a hostile one must be refused at a line, never hang the
// hook or crash it. Each shape below ends in a parse problem within the reader's limits (size,
// documents, flow nesting checked before the parser runs, a node budget for aliases).
import { describe, expect, test } from "vitest";
import { parseYamlDocs, MAX_DOCUMENTS } from "../../src/kubernetes/yaml.js";

describe("hostile YAML", () => {
  test.each([
    [
      "flow nesting 100,000 deep (the parser recurses on it)",
      `kind: Deployment\nspec: ${"[".repeat(100_000)}${"]".repeat(100_000)}\n`,
      /nested more than 100 levels deep/,
    ],
    [
      "an alias bomb (9 × 9 × 9 × 9 × 9 × 9 × 9 nodes)",
      [
        "kind: Deployment",
        "a: &a [x,x,x,x,x,x,x,x,x]",
        ...["b", "c", "d", "e", "f", "g"].map((k, i) => `${k}: &${k} [${Array(9).fill(`*${"abcdefg"[i]}`).join(",")}]`),
        "z: [*g,*g,*g,*g,*g,*g,*g,*g,*g]",
        "",
      ].join("\n"),
      /alias bomb/,
    ],
    ["more documents than any manifest", "---\nkind: Pod\n".repeat(MAX_DOCUMENTS + 10), /more than 2000 documents/],
    ["a file past the size limit", `kind: Deployment\nx: "${"a".repeat(9 * 1024 * 1024)}"\n`, /larger than 8 MiB/],
  ])("%s: refused with a problem", (_name, text, message) => {
    const r = parseYamlDocs("k8s/x.yaml", text);
    expect(r.problems.map((p) => p.message).join("\n")).toMatch(message);
  });

  test("block nesting 3,000 deep: a problem, and no stack overflow", () => {
    const text = Array.from({ length: 3000 }, (_, i) => `${" ".repeat(i)}a:`).join("\n");
    expect(parseYamlDocs("k8s/x.yaml", text).problems.length).toBeGreaterThan(0);
  });
});
