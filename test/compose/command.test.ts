// `command` and `entrypoint` as a string (shell words) or a list, turned into one command line whose
// every word keeps the line it is written on, so a flag finding points at the flag's line.
import { describe, expect, test } from "vitest";
import { CF, flags, lines, problems, read } from "./helpers.js";

const svc = (...body: string[]): Record<string, string> => ({
  [CF]: lines("services:", "  coder:", "    image: vllm/vllm-openai:v0.10.2", ...body),
});

describe("command", () => {
  test.each([
    [
      "a plain string: every word on its line",
      ["    command: --model Qwen/Qwen3-8B --max-model-len 32768"],
      "--model Qwen/Qwen3-8B --max-model-len 32768",
      4,
      [4, 4, 4, 4],
    ],
    [
      "a folded block: each word on the line it is written",
      ["    command: >", "      --model Qwen/Qwen3-8B", "      --max-model-len 32768", "      --kv-cache-memory-bytes 8589934592"],
      "--model Qwen/Qwen3-8B --max-model-len 32768 --kv-cache-memory-bytes 8589934592",
      4,
      [5, 5, 6, 6, 7, 7],
    ],
    [
      "a list: a line per item",
      ["    command:", "      - --model", "      - Qwen/Qwen3-8B", '      - "--max-model-len=32768"', "      - --enforce-eager"],
      "--model Qwen/Qwen3-8B --max-model-len=32768 --enforce-eager",
      5,
      [5, 6, 7, 8],
    ],
    ["a flow list", ['    command: ["--model", "m", "--max-model-len", "8192"]'], "--model m --max-model-len 8192", 4, [4, 4, 4, 4]],
    [
      "shell quoting keeps a JSON word whole",
      ["    command: >-", "      --model m", `      --hf-overrides '{"rope_scaling": {"rope_type": "yarn", "factor": 4}}'`],
      `--model m --hf-overrides '{"rope_scaling": {"rope_type": "yarn", "factor": 4}}'`,
      4,
      [5, 5, 6, 6],
    ],
    [
      "a list item with spaces is one word, quoted back",
      ["    command:", "      - --override-generation-config", "      - '{\"max_new_tokens\": 512}'"],
      `--override-generation-config '{"max_new_tokens": 512}'`,
      5,
      [5, 6],
    ],
  ])("%s", (_name, body, value, line, wordLines) => {
    expect(flags(read(svc(...body)), "coder")).toEqual({ value, line, file: CF, wordLines });
  });

  test("entrypoint words come before command words", () => {
    const r = read(
      svc("    entrypoint: [vllm, serve]", "    command:", "      - Qwen/Qwen3-8B", "      - --max-model-len", "      - '32768'"),
    );
    expect(flags(r, "coder")).toEqual({
      value: "vllm serve Qwen/Qwen3-8B --max-model-len 32768",
      line: 6,
      file: CF,
      wordLines: [4, 4, 6, 7, 8],
    });
  });

  test("an entrypoint string alone is the command line", () => {
    const r = read(svc("    entrypoint: python3 -m vllm.entrypoints.openai.api_server --max-model-len 4096"));
    expect(flags(r, "coder")?.value).toBe("python3 -m vllm.entrypoints.openai.api_server --max-model-len 4096");
  });

  test("no command and no entrypoint (or command: null): no flags edit, the image's own command runs", () => {
    expect(flags(read(svc("    ports: ['8000:8000']")), "coder")).toBeNull();
    expect(flags(read(svc("    command: null")), "coder")).toBeNull();
  });

  test("command: [] or '' clears the command line (the image's CMD is not run)", () => {
    expect(flags(read(svc("    command: []")), "coder")?.value).toBe("");
    expect(flags(read(svc("    command: ''")), "coder")?.value).toBe("");
  });

  test.each([
    [
      "sh -c with one plain command is opened",
      ['    command: sh -c "exec vllm serve m --max-model-len 8192"'],
      "vllm serve m --max-model-len 8192",
      [4, 4, 4, 4, 4],
    ],
    [
      "bash -c as a list",
      ["    entrypoint: [/bin/bash, -c]", "    command:", "      - >-", "        vllm serve m", "        --max-model-len 8192"],
      "vllm serve m --max-model-len 8192",
      [7, 7, 7, 8, 8],
    ],
    [
      "a script with && is kept whole",
      ['    command: bash -c "pip install x && vllm serve m --max-model-len 8192"'],
      "bash -c 'pip install x && vllm serve m --max-model-len 8192'",
      [4, 4, 4],
    ],
  ])("%s", (_name, body, value, wordLines) => {
    expect(flags(read(svc(...body)), "coder")).toMatchObject({ value, wordLines });
  });

  test("$$ in a command is a literal $ (left to the container's shell)", () => {
    expect(flags(read(svc("    command: sh -c 'echo $$HOSTNAME; vllm serve m'")), "coder")?.value).toBe(
      "sh -c 'echo $HOSTNAME; vllm serve m'",
    );
  });

  test("a compose variable the .env does not set leaves out its word and its flag, never the rest", () => {
    const r = read(
      svc(
        "    command:",
        "      - --model",
        "      - Qwen/Qwen3-8B",
        "      - --port",
        "      - ${PORT}",
        "      - --max-model-len",
        "      - '8192'",
      ),
    );
    expect(flags(r, "coder")?.value).toBe("--model Qwen/Qwen3-8B --max-model-len 8192");
    expect(r.problems.map((p) => [p.kind, p.line, p.key])).toEqual([["unresolved", 8, "COMMAND"]]);
    expect(r.problems[0]?.message).toContain("--port ${PORT} in the command of coder");
  });
});

// Compose interpolates its own variables (compose-go interpolation.go) before the container starts;
// `$$` is a literal `$` (template.go escaped group), so `$${LEN}` reaches the container as `${LEN}`,
// which its shell expands from the container's environment: the service's environment over its
// env_file (compose spec, services env_file). Expected values are what that shell would run.
describe("variables in a command", () => {
  const envFile = { "deploy/serve.env": "MAX_LEN=16384\n" };
  test.each([
    [
      "the issue's case: an unset ${LEN} no longer hides the model written before it",
      ["    command: Qwen/Qwen3-8B --max-model-len ${LEN} --tensor-parallel-size 1"],
      {},
      "vllm serve Qwen/Qwen3-8B --tensor-parallel-size 1",
      [[4, "--max-model-len ${LEN}"]],
    ],
    [
      "--flag=${X} is one word: only it is left out",
      ["    command: --model m --max-model-len=${LEN} --enforce-eager"],
      {},
      "--model m --enforce-eager",
      [[4, "--max-model-len=${LEN}"]],
    ],
    [
      "$${MAX_LEN} in sh -c, set in environment: the container's shell gives 8192",
      ["    environment:", "      MAX_LEN: 8192", '    command: sh -c "vllm serve m --max-model-len $${MAX_LEN}"'],
      {},
      "vllm serve m --max-model-len 8192",
      [],
    ],
    [
      "$$MAX_LEN in sh -c, set in the env_file: 16384",
      ["    env_file: serve.env", '    command: ["sh", "-c", "exec vllm serve m --max-model-len $$MAX_LEN"]'],
      envFile,
      "vllm serve m --max-model-len 16384",
      [],
    ],
    [
      "environment wins over the env_file for the shell too",
      ["    env_file: serve.env", "    environment: [MAX_LEN=4096]", '    command: sh -c "vllm serve m --max-model-len $${MAX_LEN}"'],
      envFile,
      "vllm serve m --max-model-len 4096",
      [],
    ],
    [
      "the shell's own default when the environment does not set it",
      ['    command: sh -c "vllm serve m --max-model-len $${MAX_LEN:-4096}"'],
      {},
      "vllm serve m --max-model-len 4096",
      [],
    ],
    [
      "not set anywhere the container gets it: kept as written (unreadable, never the model's maximum), with a notice",
      ['    command: sh -c "vllm serve m --max-model-len $${MAX_LEN}"'],
      {},
      "vllm serve m --max-model-len '${MAX_LEN}'",
      [[4, "${MAX_LEN} in the sh -c script of coder is the container shell's variable"]],
    ],
    [
      "single quotes in the script keep it literal, as sh does",
      [`    command: sh -c "vllm serve m --served-model-name '$\${NAME}'"`],
      {},
      "vllm serve m --served-model-name '${NAME}'",
      [],
    ],
  ])("%s", (_name, body, extra, value, notices) => {
    const r = read({ ...svc(...body), ...extra });
    expect(flags(r, "coder")?.value).toBe(value);
    expect(r.problems).toHaveLength(notices.length);
    for (const [i, [line, text]] of (notices as [number, string][]).entries()) {
      expect(r.problems[i]).toMatchObject({ kind: "unresolved", line, key: "COMMAND" });
      expect(r.problems[i]?.message).toContain(text);
    }
  });
});

describe("commands compose refuses", () => {
  test("a string with an unclosed quote is a parse error at its line", () => {
    const r = read(svc(`    command: --model m --hf-overrides '{"a": 1}`));
    expect(problems(r)).toEqual([["parse", CF, 4]]);
    expect(flags(r, "coder")).toBeNull();
  });

  test("a mapping is not a command: a parse error", () => {
    expect(problems(read(svc("    command: { a: 1 }")))).toEqual([["parse", CF, 4]]);
  });
});
