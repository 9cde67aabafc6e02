// Hostile and big shapes: each is read, or refused with the reason docker compose gives (or kvgate's
// own, named as such), never a hang or a crash. How long each takes is measured in bench/compose.sh
// (npm run bench), not here.
import { describe, expect, test } from "vitest";
import { readComposeYaml } from "../../src/compose/yaml.js";
import { UNSET } from "../../src/compose/interpolate.js";
import type { CNode } from "../../src/compose/tree.js";
import { CF, lines, read } from "./helpers.js";

const service = (i: number): string => `  s${i}:\n    image: nginx\n    environment: { A: "${i}", B: b }\n`;
const services = (n: number): string => "services:\n" + Array.from({ length: n }, (_, i) => service(i)).join("");

describe("compose-go's node limit (loader/reset.go defaultMaxNodeVisits = 100,000)", () => {
  test("a file of 120,000 nodes and no anchor is refused with compose's reason: it is not an alias bomb", () => {
    // Each service: 1 + image + environment map + 2 values = 5 value nodes; 24,000 services > 100,000.
    const r = read({ [CF]: services(24_000) });
    expect(r.problems.map((p) => p.kind)).toEqual(["parse"]);
    expect(r.problems[0]?.message).toContain('"compose file exceeds maximum node visit limit (100000)"');
    expect(r.problems[0]?.message).not.toContain("alias");
  });

  test("just under the limit is read (19,000 services, about 95,000 nodes)", () => {
    const r = read({ [CF]: services(19_000) });
    expect(r.problems).toEqual([]);
    expect(r.deploys).toHaveLength(19_000);
  });

  test("an alias counts once (its resolution is cached in compose-go): a shared anchor used 30,000 times is read", () => {
    const text = lines(
      "x-env: &env { A: a, B: b, C: c }",
      "services:",
      ...Array.from({ length: 30_000 }, (_, i) => `  s${i}: { image: nginx, environment: *env }`),
    );
    const y = readComposeYaml(CF, text, UNSET);
    expect(y.refused).toBeNull();
  });
});

test("an alias bomb is refused with go-yaml's reason (decode.go allowedAliasRatio: excessive aliasing)", () => {
  const bomb = ["a: &a [x, x, x, x, x, x, x, x, x, x]"];
  for (let i = 1; i < 9; i++)
    bomb.push(
      `${String.fromCharCode(97 + i)}: &${String.fromCharCode(97 + i)} [${Array(10)
        .fill("*" + String.fromCharCode(96 + i))
        .join(", ")}]`,
    );
  const r = read({ [CF]: lines(...bomb, "services:", "  s:", "    image: x", "    environment: *i") });
  expect(r.problems.map((p) => p.kind)).toEqual(["parse"]);
  expect(r.problems[0]?.message).toContain('"document contains excessive aliasing"');
});

describe("documents", () => {
  test("20,000 `---` in 80 KB: empty documents, skipped (compose-go merges only what a document holds)", () => {
    const r = read({ [CF]: lines("services:", "  a:", "    image: x") + "---\n".repeat(20_000) });
    expect(r.problems).toEqual([]);
    expect(r.deploys.map((d) => d.composeService)).toEqual(["a"]);
  });

  test("more than 1,000 non-empty documents: kvgate's own limit, said as such", () => {
    const r = read({ [CF]: Array.from({ length: 1_001 }, (_, i) => `services: { s${i}: { image: x } }\n`).join("---\n") });
    expect(r.problems.map((p) => p.kind)).toEqual(["parse"]);
    expect(r.problems[0]?.message).toContain("more than 1,000 YAML documents");
  });
});

test("a chain of include diamonds (each file included along two paths) reads each file once", () => {
  const depth = 24;
  const files: Record<string, string> = {};
  for (let i = 0; i < depth; i++) {
    const next = i + 1 < depth ? ["include:", `  - ../l${i + 1}a/compose.yaml`, `  - ../l${i + 1}b/compose.yaml`] : [];
    for (const side of ["a", "b"])
      files[`deploy/l${i}${side}/compose.yaml`] = lines(...next, "services:", `  s${i}${side}:`, "    image: x");
  }
  files[CF] = lines("include: [l0a/compose.yaml, l0b/compose.yaml]", "services: {}");
  const r = read(files);
  expect(r.problems).toEqual([]);
  expect(r.deploys).toHaveLength(2 * depth);
});

describe("a big file read in pieces is the file read whole", () => {
  // 600 KB of services under one block: past the size where the reader cuts it into pieces.
  const big =
    "x-base: &base\n  image: vllm/vllm-openai:v0.10.2\nservices:\n" +
    Array.from(
      { length: 4_000 },
      (_, i) =>
        `  s${i}:\n    <<: *base\n    command: ["--model", "m${i}", "--port", "${8000 + i}"]\n    environment:\n      NOTE: "${"x".repeat(60)}"\n`,
    ).join("") +
    "volumes:\n  v: {}\n";

  test("the same tree, every value at the same line", () => {
    expect(big.length).toBeGreaterThan(512 * 1024);
    const pieces = readComposeYaml(CF, big, UNSET);
    // A quoted top-level key makes the file one the pieces do not cut: read whole.
    const whole = readComposeYaml(CF, big.replace("volumes:", '"volumes":'), UNSET);
    expect(pieces.refused).toBeNull();
    expect(shape(pieces.docs[0])).toEqual(shape(whole.docs[0]));
  });

  test("an error in a piece is the whole file's error, at its line", () => {
    const broken = big.replace("  s2000:\n    <<: *base\n", '  s2000:\n    <<: *base\n    image: "unclosed\n');
    const y = readComposeYaml(CF, broken, UNSET);
    expect(y.refused?.message).toContain("is not valid YAML");
    expect(y.refused?.line).toBeGreaterThan(big.slice(0, big.indexOf("  s2000:")).split("\n").length);
  });
});

/** A tree as plain data with each node's line, for comparing two reads. */
function shape(n: CNode | undefined): unknown {
  if (!n) return null;
  switch (n.t) {
    case "str":
      return [n.pos.line, n.value, n.type ?? null];
    case "seq":
      return [n.pos.line, n.items.map(shape)];
    case "map":
      return [n.pos.line, [...n.entries].map(([k, e]) => [k, e.keyPos.line, shape(e.value)])];
    case "reset":
      return [n.pos.line, "reset"];
    default:
      return null;
  }
}
