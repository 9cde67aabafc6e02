// extends with `file:` and top-level `include`: files in the repository are read (each value at its
// own file's line), cycles are refused as Compose refuses them, and a path that leaves the repository
// is a notice, never a read.
import { describe, expect, test } from "vitest";
import { readComposeFiles } from "../../src/compose/index.js";
import { CF, lines, problems, read, sets } from "./helpers.js";

const COMMON = "deploy/common/vllm.yaml";
const common = lines(
  "services:", //                                      1
  "  vllm:", //                                        2
  "    image: vllm/vllm-openai:${VLLM_TAG}", //        3
  "    env_file: vllm.env", //                         4
  "    environment:", //                               5
  "      HF_HOME: /models", //                         6
);

describe("extends with file:", () => {
  test("the base comes from the other file, its relative paths from that file's folder, its variables from this project", () => {
    const r = read({
      [CF]: lines(
        "services:",
        "  coder:",
        "    extends:",
        "      file: common/vllm.yaml",
        "      service: vllm",
        "    environment:",
        "      MAX_MODEL_LEN: 32768",
      ),
      [COMMON]: common,
      "deploy/common/vllm.env": "TP=1\n",
      "deploy/.env": "VLLM_TAG=v0.10.2\n",
    });
    expect(sets(r, "coder")).toEqual({
      TP: ["1", 1, "deploy/common/vllm.env"],
      HF_HOME: ["/models", 6, COMMON],
      MAX_MODEL_LEN: ["32768", 7],
      IMAGE: ["vllm/vllm-openai:v0.10.2", 3, COMMON],
    });
    expect(r.files).toEqual([CF, "deploy/.env", COMMON, "deploy/common/vllm.env"]);
    expect(r.composeFiles).toEqual([COMMON]);
    expect(r.problems).toEqual([]);
  });

  test.each([
    ["a file outside the repository", "../../../etc/compose.yaml", "parse"],
    ["an absolute path", "/opt/fleet/compose.yaml", "parse"],
    ["a remote file", "https://example.com/compose.yaml", "unresolved"],
    ["a file not in the repository", "missing.yaml", "parse"],
  ])("%s: a %s problem at the file: line, and the service is read without its base", (_name, path, kind) => {
    const r = read({
      [CF]: lines("services:", "  coder:", "    image: x", "    extends:", `      file: ${path}`, "      service: vllm"),
      "../etc/compose.yaml": common,
    });
    expect(problems(r)).toEqual([[kind, CF, 5]]);
    expect(sets(r, "coder")).toEqual({ IMAGE: ["x", 3] });
    expect(r.files).toEqual([CF]);
  });

  test("a service the other file does not define is a parse error", () => {
    const r = read({ [CF]: lines("services:", "  coder:", "    extends: { file: common/vllm.yaml, service: nope }"), [COMMON]: common });
    expect(problems(r)).toEqual([["parse", CF, 3]]);
  });

  test("a cycle across files is a parse error naming the loop, and reading ends", () => {
    const r = read({
      [CF]: lines("services:", "  a:", "    extends: { file: b.yaml, service: b }"),
      "deploy/b.yaml": lines("services:", "  b:", "    extends: { file: compose.yaml, service: a }"),
    });
    expect(problems(r)).toEqual([["parse", "deploy/b.yaml", 3]]);
    expect(r.problems[0]?.message).toContain("a (deploy/compose.yaml) → b (deploy/b.yaml) → a (deploy/compose.yaml)");
  });

  test("a cycle in one file, and a service extending itself", () => {
    const r = read({ [CF]: lines("services:", "  a:", "    extends: b", "  b:", "    extends: a", "  c:", "    extends: c") });
    expect(problems(r)).toEqual([
      ["parse", CF, 5],
      ["parse", CF, 7],
    ]);
    expect(r.deploys.map((d) => d.composeService)).toEqual(["a", "b", "c"]);
  });
});

describe("include", () => {
  const gpuStack = lines("services:", "  voices:", "    image: vllm/vllm-openai:${TAG}", "    env_file: voices.env");

  test.each([
    ["a string item", ["include:", "  - gpu/compose.yaml"]],
    ["the long form", ["include:", "  - path: gpu/compose.yaml"]],
    ["the long form with a path list", ["include:", "  - path:", "      - gpu/compose.yaml"]],
  ])("%s: the included services are deploys of this file, their paths and .env their own", (_name, inc) => {
    const r = read({
      [CF]: lines(...inc, "services:", "  web:", "    image: nginx"),
      "deploy/gpu/compose.yaml": gpuStack,
      "deploy/gpu/.env": "TAG=v0.10.2\n",
      "deploy/gpu/voices.env": "MAX_MODEL_LEN=8192\n",
    });
    expect(r.deploys.map((d) => d.composeService)).toEqual(["web", "voices"]);
    expect(sets(r, "voices", "deploy/gpu/compose.yaml")).toEqual({ IMAGE: ["vllm/vllm-openai:v0.10.2", 3] });
    expect(r.deploys[1]?.envFile).toBe("deploy/gpu/voices.env");
    expect(r.deploys[1]?.playbook).toBe(CF);
    expect(r.composeFiles).toEqual(["deploy/gpu/compose.yaml"]);
    expect(r.problems).toEqual([]);
  });

  test("the including project's .env wins over the included one's; env_file of the include replaces its .env", () => {
    const files = {
      "deploy/gpu/compose.yaml": gpuStack,
      "deploy/gpu/.env": "TAG=v0.9.0\n",
      "deploy/gpu/other.env": "TAG=v0.8.0\n",
      "deploy/.env": "TAG=v0.10.2\n",
    };
    const r1 = read({ [CF]: lines("include: [gpu/compose.yaml]"), ...files });
    expect(sets(r1, "voices", "deploy/gpu/compose.yaml").IMAGE).toEqual(["vllm/vllm-openai:v0.10.2", 3]);
    const { "deploy/.env": _, ...noParentEnv } = files;
    const r2 = read({ [CF]: lines("include:", "  - path: gpu/compose.yaml", "    env_file: gpu/other.env"), ...noParentEnv });
    expect(sets(r2, "voices", "deploy/gpu/compose.yaml").IMAGE).toEqual(["vllm/vllm-openai:v0.8.0", 3]);
  });

  test("an included file that includes the first is a cycle: a parse error", () => {
    const r = read({
      [CF]: lines("include: [gpu/compose.yaml]", "services: {}"),
      "deploy/gpu/compose.yaml": lines("include: [../compose.yaml]", "services: {}"),
    });
    expect(problems(r)).toEqual([["parse", "deploy/gpu/compose.yaml", 1]]);
  });

  // README "Compose files": an include outside the repository (or not in it) is compose/parse, the
  // services it defines being unknown; a remote include (git, OCI) is not read: a notice.
  test.each([
    ["outside the repository", "../../x/compose.yaml", "parse"],
    ["absolute", "/srv/compose.yaml", "parse"],
    ["not in the repository", "nope/compose.yaml", "parse"],
    ["remote (git)", "https://github.com/org/stack.git", "unresolved"],
  ])("an include %s is a %s problem at its line", (_name, path, kind) => {
    const r = read({ [CF]: lines("include:", `  - ${path}`, "services:", "  web:", "    image: nginx"), "../x/compose.yaml": gpuStack });
    expect(problems(r)).toEqual([[kind, CF, 2]]);
    expect(r.deploys.map((d) => d.composeService)).toEqual(["web"]);
  });

  // compose-go include.go importResource: a service defined both here and in an included file is the
  // included one with this file's merged over it (override.MergeYaml(imported, own)).
  test("an included service with the name of one defined here: this file's values merged over the included ones", () => {
    const r = read({
      [CF]: lines("include: [gpu/compose.yaml]", "services:", "  voices:", "    image: mine"),
      "deploy/gpu/compose.yaml": gpuStack,
      "deploy/gpu/voices.env": "MAX_MODEL_LEN=8192\n",
    });
    expect(problems(r)).toEqual([]);
    // The env_file is the included definition's, the image this file's.
    expect(r.deploys.map((d) => [d.composeService, d.envFiles])).toEqual([["voices", ["deploy/gpu/voices.env"]]]);
    expect(sets(r, "voices")).toEqual({ IMAGE: ["mine", 4] });
  });
});

describe("readComposeFiles", () => {
  test("files that another compose file pulls in are not applications of their own", () => {
    const files = new Map(
      Object.entries({
        [CF]: lines("include: [gpu/compose.yaml]", "services:", "  web:", "    extends: { file: compose.base.yaml, service: web }"),
        "deploy/compose.override.yaml": lines("services:", "  web:", "    environment: { A: 1 }"),
        "deploy/compose.base.yaml": lines("services:", "  web:", "    image: nginx"),
        "deploy/gpu/compose.yaml": lines("services:", "  voices:", "    image: vllm/vllm-openai:v0.10.2"),
        "other/compose.yaml": lines("services:", "  coder:", "    image: vllm/vllm-openai:v0.10.2"),
      }),
    );
    const reads = readComposeFiles([...files.keys()], files);
    expect(reads.map((r) => [r.path, r.deploys.map((d) => d.composeService)])).toEqual([
      [CF, ["web", "voices"]],
      ["other/compose.yaml", ["coder"]],
    ]);
    expect(reads[0]?.files).toEqual([CF, "deploy/compose.override.yaml", "deploy/compose.base.yaml", "deploy/gpu/compose.yaml"]);
  });

  test("two files that include each other are both kept (both report the cycle)", () => {
    const files = new Map(
      Object.entries({ "a/compose.yaml": lines("include: [../b/compose.yaml]"), "b/compose.yaml": lines("include: [../a/compose.yaml]") }),
    );
    const reads = readComposeFiles([...files.keys()], files);
    expect(reads.map((r) => [r.path, r.problems.map((p) => p.kind)])).toEqual([
      ["a/compose.yaml", ["parse"]],
      ["b/compose.yaml", ["parse"]],
    ]);
  });
});
