// Fail closed: a compose file the reader cannot read is a problem the user sees, with its line; never
// a crash and never a silent pass. Valid YAML that is not a compose file is simply not a deploy.
import { describe, expect, test } from "vitest";
import { readCompose } from "../../src/compose/index.js";
import { CF, lines, problems, read } from "./helpers.js";

describe("compose/parse problems", () => {
  test.each([
    ["a key at a wrong indent", lines("services:", "  coder:", "    image: x", "   environment: {}"), 4],
    ["an unclosed flow mapping (reported at the next line)", lines("services:", "  coder: { image: x", "  other: 1"), 3],
    ["a tab indent", lines("services:", "\tcoder:", "    image: x"), 2],
    ["a key defined twice", lines("services:", "  coder:", "    image: a", "    image: b"), 4],
    // The schema's refusals are in refused.test.ts; these two are the shape the schema names too.
    ["services that is a list", lines("services:", "  - coder"), 2],
    ["a service that is a list", lines("services:", "  coder: [a]"), 2],
  ])("%s: a parse error at line %s, no deploy from it", (_name, text, line) => {
    const r = read({ [CF]: text });
    expect(r.problems.map((p) => [p.kind, p.file, p.line])).toEqual([["parse", CF, line]]);
    expect(r.deploys).toEqual([]);
  });

  test("a file that is not UTF-8 (as the fleet loader decodes it) is a parse problem at line 1", () => {
    const r = readCompose(CF, (p) => (p === CF ? { text: null, problem: "the file is not valid UTF-8; save it as UTF-8" } : null));
    expect(problems(r)).toEqual([["parse", CF, 1]]);
    expect(r.problems[0]?.message).toContain("UTF-8");
    expect([r.isCompose, r.deploys, r.files]).toEqual([false, [], [CF]]);
  });

  test("a file holding a NUL byte is a parse problem", () => {
    const r = read({ [CF]: "services:\n  a:\u0000\n" });
    expect(problems(r)).toEqual([["parse", CF, 1]]);
  });

  test("a non-UTF-8 env_file or .env is a parse problem too, and the rest is still read", () => {
    const r = readCompose(CF, (p) =>
      p === CF
        ? lines("services:", "  a:", "    image: x", "    env_file: a.env")
        : p === "deploy/a.env" || p === "deploy/.env"
          ? { text: null, problem: "the file is not valid UTF-8" }
          : null,
    );
    expect(problems(r)).toEqual([
      ["parse", "deploy/.env", 1],
      ["parse", "deploy/a.env", 1],
    ]);
    expect(r.deploys[0]?.edits.map((e) => e.kind)).toEqual(["set"]);
  });

  test("a broken .env line is a parse problem at its line; its good lines still resolve", () => {
    const r = read({
      [CF]: lines("services:", "  a:", "    image: vllm/vllm-openai:${TAG}"),
      "deploy/.env": lines("TAG=v0.10.2", "not an assignment = x y"),
    });
    expect(problems(r)).toEqual([["parse", "deploy/.env", 2]]);
    expect(r.deploys[0]?.edits).toEqual([{ kind: "set", key: "IMAGE", value: "vllm/vllm-openai:v0.10.2", line: 3, file: CF }]);
  });

  test("nesting past 100 levels is a parse problem, not a stack overflow", () => {
    const deep = "services:\n  a:\n    labels: " + "[".repeat(150) + "]".repeat(150) + "\n";
    const r = read({ [CF]: deep });
    expect(r.problems.map((p) => p.kind)).toEqual(["parse"]);
  });
});

describe("not a compose file: no deploy, no problem", () => {
  test.each([
    ["a mapping without services", lines("version: '3'", "name: x", "volumes: {}")],
    ["a list", lines("- a", "- b")],
    ["a scalar", "just text\n"],
    ["an empty file", ""],
    ["comments only", "# nothing\n"],
  ])("%s", (_name, text) => {
    const r = read({ [CF]: text });
    expect([r.isCompose, r.deploys, r.problems]).toEqual([false, [], []]);
  });

  test("a file the source does not have: nothing read", () => {
    expect(read({}, CF)).toEqual({
      path: CF,
      isCompose: false,
      deploys: [],
      problems: [],
      files: [],
      composeFiles: [],
      activeProfiles: null,
    });
  });

  test("services: {} and an empty service mapping are a compose file with what they set", () => {
    expect(read({ [CF]: "services: {}\n" })).toMatchObject({ isCompose: true, deploys: [], problems: [] });
    const r = read({ [CF]: lines("services:", "  idle: {}") });
    expect(r.deploys.map((d) => [d.composeService, d.edits.length, d.line])).toEqual([["idle", 0, 2]]);
  });

  test("keys compose does not use for sizing are read past (extensions, healthchecks, networks)", () => {
    const r = read({
      [CF]: lines(
        "services:",
        "  a:",
        "    image: x",
        '    healthcheck: { test: [CMD, "true"] }',
        "    x-frobnicate: 7",
        "x-notes: hi",
        "networks: { n: {} }",
      ),
    });
    expect([r.problems, r.deploys[0]?.edits.length]).toEqual([[], 1]);
  });
});
