// `environment` (map and list forms) and `env_file` (string, list, long form), with the env file's
// settings under the compose values as the compose spec orders them, each at the line that sets it.
import { describe, expect, test } from "vitest";
import { CF, edits, lines, problems, read, sets } from "./helpers.js";

const KNOWN = {
  services: new Map([
    ["coder", "scripts/coder.env"],
    ["voices", "scripts/voices.env"],
  ]),
};

describe("environment", () => {
  test("map form: each value at its own line; numbers and booleans as written", () => {
    const r = read({
      [CF]: lines(
        "services:", //                                1
        "  coder:", //                                 2
        "    environment:", //                         3
        "      MAX_MODEL_LEN: 32768", //               4
        "      GPU_MEMORY_UTILIZATION: 0.90", //       5
        '      KV_CACHE_DTYPE: "fp8"', //              6
        "      VLLM_ALLOW_LONG_MAX_MODEL_LEN: true", // 7
        "      EMPTY: ''", //                          8
      ),
    });
    expect(sets(r, "coder")).toEqual({
      MAX_MODEL_LEN: ["32768", 4],
      GPU_MEMORY_UTILIZATION: ["0.90", 5],
      KV_CACHE_DTYPE: ["fp8", 6],
      VLLM_ALLOW_LONG_MAX_MODEL_LEN: ["true", 7],
      EMPTY: ["", 8],
    });
  });

  test("list form: KEY=VALUE split at the first =, KEY= is empty", () => {
    const r = read({
      [CF]: lines(
        "services:",
        "  coder:",
        "    environment:", //                                    3
        "      - MAX_MODEL_LEN=32768", //                         4
        '      - "SERVE_ARGS=--max-num-seqs 4 --x=y"', //         5
        "      - EMPTY=", //                                      6
      ),
    });
    expect(sets(r, "coder")).toEqual({ MAX_MODEL_LEN: ["32768", 4], SERVE_ARGS: ["--max-num-seqs 4 --x=y", 5], EMPTY: ["", 6] });
  });

  test("a bare KEY takes the .env's value (envvars precedence, result 11); without one it is a notice and skipped", () => {
    const compose = lines("services:", "  coder:", "    environment:", "      - MAX_MODEL_LEN", "      TOKEN_LIST_IS_WRONG_FORM: 1");
    // Mixing forms is a YAML error; keep the bare-key table separate:
    expect(problems(read({ [CF]: compose }))[0]?.[0]).toBe("parse");
    const list = lines("services:", "  coder:", "    environment:", "      - MAX_MODEL_LEN", "      - HF_TOKEN");
    const map = lines("services:", "  coder:", "    environment:", "      MAX_MODEL_LEN:", "      HF_TOKEN: ~");
    for (const text of [list, map]) {
      const r = read({ [CF]: text, "deploy/.env": "MAX_MODEL_LEN=40960\n" });
      expect(sets(r, "coder")).toEqual({ MAX_MODEL_LEN: ["40960", 4] });
      expect(r.problems.map((p) => [p.kind, p.line, p.key])).toEqual([["unresolved", 5, "HF_TOKEN"]]);
    }
  });

  test("a later list entry of the same key wins", () => {
    const r = read({ [CF]: lines("services:", "  a:", "    environment:", "      - TP=1", "      - TP=2") });
    expect(edits(r, "a")).toEqual([
      ["set", "TP", "1", 4],
      ["set", "TP", "2", 5],
    ]);
  });
});

describe("env_file", () => {
  const common = lines("HF_HOME=/models", "MAX_MODEL_LEN=16384", "KV_CACHE_MEMORY_BYTES=4G");

  // compose spec, services env_file: "Environment variables declared in the environment section
  // override these values"; envvars-precedence results 2 and 3.
  test("the env file's settings come first, at their own lines; environment overrides them", () => {
    const r = read({
      [CF]: lines(
        "services:", //                             1
        "  coder:", //                              2
        "    env_file: ../common.env", //           3
        "    environment:", //                      4
        "      MAX_MODEL_LEN: 32768", //            5
      ),
      "common.env": common,
    });
    expect(edits(r, "coder")).toEqual([
      ["set", "HF_HOME", "/models", 1, "common.env"],
      ["set", "MAX_MODEL_LEN", "16384", 2, "common.env"],
      ["set", "KV_CACHE_MEMORY_BYTES", "4G", 3, "common.env"],
      ["set", "MAX_MODEL_LEN", "32768", 5],
    ]);
    expect(r.deploys[0]?.envFiles).toEqual(["common.env"]);
    expect(r.files).toEqual([CF, "common.env"]);
  });

  test("a list is read top down, the last file winning; the long form's required: false skips a missing file", () => {
    const r = read({
      [CF]: lines(
        "services:",
        "  coder:",
        "    env_file:", //                          3
        "      - a.env", //                          4
        "      - path: b.env", //                    5
        "        required: true",
        "      - path: missing.env", //              7
        "        required: false",
        "      - gone.env", //                       9
      ),
      "deploy/a.env": "TP=1\nHOST=fv-ml1\n",
      "deploy/b.env": "TP=2\n",
    });
    expect(edits(r, "coder")).toEqual([
      ["set", "TP", "1", 1, "deploy/a.env"],
      ["set", "HOST", "fv-ml1", 2, "deploy/a.env"],
      ["set", "TP", "2", 1, "deploy/b.env"],
    ]);
    // A required env_file that is not in the repository: a notice at its line (it may live on the host only).
    expect(r.problems.map((p) => [p.kind, p.file, p.line])).toEqual([["unresolved", CF, 9]]);
    expect(r.problems[0]?.message).toContain("required: false");
  });

  test("the env_file that is the service's own env file is the base, not edits; it names the service", () => {
    const r = read(
      {
        [CF]: lines("services:", "  seat-1:", "    env_file: ../scripts/coder.env", "    image: vllm/vllm-openai:v0.10.2"),
        "scripts/coder.env": common,
      },
      CF,
      KNOWN,
    );
    const d = r.deploys[0];
    expect([d?.service, d?.envFile, d?.matchedBy, d?.composeService]).toEqual(["coder", "scripts/coder.env", "env_file", "seat-1"]);
    expect(edits(r, "coder")).toEqual([["set", "IMAGE", "vllm/vllm-openai:v0.10.2", 4]]);
  });

  test("env_file values interpolate from the .env, earlier lines of the same file, and a bare KEY; format: raw does not", () => {
    const r = read({
      [CF]: lines("services:", "  a:", "    env_file:", "      - x.env", "      - path: raw.env", "        format: raw"),
      "deploy/.env": "LEN=32768\nTOKEN_FROM_DOTENV=t\n",
      "deploy/x.env": lines(
        "MAX_MODEL_LEN=${LEN}",
        "CTX=${MAX_MODEL_LEN}",
        "TOKEN_FROM_DOTENV",
        "LIT='${LEN}'",
        "UNKNOWN=${NOPE}",
        "MODEL: Qwen/Qwen3-8B",
      ),
      "deploy/raw.env": "RAW=${LEN}\n",
    });
    expect(sets(r, "a")).toEqual({
      MAX_MODEL_LEN: ["32768", 1, "deploy/x.env"],
      CTX: ["32768", 2, "deploy/x.env"],
      TOKEN_FROM_DOTENV: ["t", 3, "deploy/x.env"],
      LIT: ["${LEN}", 4, "deploy/x.env"],
      MODEL: ["Qwen/Qwen3-8B", 6, "deploy/x.env"],
      RAW: ["${LEN}", 1, "deploy/raw.env"],
    });
    expect(r.problems.map((p) => [p.kind, p.file, p.line, p.key])).toEqual([["unresolved", "deploy/x.env", 5, "UNKNOWN"]]);
  });

  test("a broken line of an env_file is a parse problem at its line, without echoing the line", () => {
    const r = read({
      [CF]: lines("services:", "  a:", "    env_file: x.env"),
      "deploy/x.env": lines("A=1", "hf_secretvalue12345 token", "B=2"),
    });
    expect(problems(r)).toEqual([["parse", "deploy/x.env", 2]]);
    expect(r.problems[0]?.message).not.toContain("secretvalue");
    expect(sets(r, "a")).toEqual({ A: ["1", 1, "deploy/x.env"], B: ["2", 3, "deploy/x.env"] });
  });

  test("an env_file outside the repository or absolute is a notice, not a read", () => {
    const r = read({
      [CF]: lines("services:", "  a:", "    env_file:", "      - ../../etc/x.env", "      - /opt/fleet/a.env"),
      "../etc/x.env": "A=1\n",
    });
    expect(problems(r)).toEqual([
      ["unresolved", CF, 4],
      ["unresolved", CF, 5],
    ]);
    expect(r.files).toEqual([CF]);
    expect(edits(r, "a")).toEqual([]);
  });
});
