import { describe, expect, test } from "vitest";
import { parseEnv, isFlagKey } from "../../src/parse/env.js";

const env = (text: string) => parseEnv(text, "scripts/x.env");
const value = (text: string, key: string) => env(text).entries.get(key)?.value;

describe("env lines (contract section 2)", () => {
  test.each([
    ["A=1", "A", "1"],
    ["export A=1", "A", "1"],
    ["A= spaced value  ", "A", "spaced value"],
    ["A=1 # comment", "A", "1"],
    ["A=a#b", "A", "a#b"],
    ["A='lit $X \\n'", "A", "lit $X \\n"],
    ['A="q \\" \\\\ \\$X"', "A", 'q " \\ $X'],
    ['A="two\\nlines"', "A", "two\nlines"],
    ['A="x" # trailing comment', "A", "x"],
    ["A=", "A", ""],
  ])("%s", (text, key, expected) => {
    const parsed = env(text);
    expect(parsed.problems).toEqual([]);
    expect(parsed.entries.get(key)?.value).toBe(expected);
  });

  test("CRLF, a BOM, comments and blank lines keep line numbers right", () => {
    const parsed = env("\uFEFF# head\r\n\r\nA=1\r\nexport B=2\r\n");
    expect(parsed.problems).toEqual([]);
    expect(parsed.entries.get("A")?.line).toBe(3);
    expect(parsed.entries.get("B")?.line).toBe(4);
    expect(parsed.entries.get("B")?.exported).toBe(true);
  });

  test("a bad line is env/parse with its line, and the rest still parses", () => {
    const parsed = env('A=1\nthis is not an env line\n9X=2\nB="open\nC=3');
    expect(parsed.problems.map((p) => [p.kind, p.line])).toEqual([
      ["parse", 2],
      ["parse", 3],
      ["parse", 4],
    ]);
    expect(parsed.entries.get("A")?.value).toBe("1");
    expect(parsed.problems[2]?.message).toMatch(/never closed/);
  });

  test("text after a closing quote is a parse problem", () => {
    const parsed = env('A="x"y\nB=2');
    expect(parsed.problems).toHaveLength(1);
    expect(parsed.problems[0]?.message).toMatch(/after the closing quote/);
    expect(value('A="x"y\nB=2', "B")).toBe("2");
  });

  test("a duplicate key: the last wins, with a duplicate-key problem naming both lines", () => {
    const parsed = env("A=1\nB=0\nA=2");
    expect(parsed.entries.get("A")?.value).toBe("2");
    expect(parsed.problems).toEqual([expect.objectContaining({ kind: "duplicate-key", line: 3, key: "A" })]);
    expect(parsed.problems[0]?.message).toMatch(/lines 1 and 3/);
  });
});

describe("flags from *_ARGS-style keys", () => {
  test.each(["ARGS", "CMD", "COMMAND", "SERVE_ARGS", "EXTRA_FLAGS", "JAVA_OPTS"])("%s is a flag key", (k) =>
    expect(isFlagKey(k)).toBe(true),
  );
  test.each(["MODEL", "ARGS_FILE", "MY_ARGSX"])("%s is not", (k) => expect(isFlagKey(k)).toBe(false));

  test("--flag value, --flag=value, --flag_name, short flags, switches, quoted JSON", () => {
    const parsed = env(
      `SERVE_ARGS="vllm serve Qwen/Qwen3-8B --max_model_len 40960 --kv-cache-memory-bytes=8053063680 -tp 2 --enforce-eager --hf-overrides '{\\"a\\": 1}'"`,
    );
    expect(parsed.problems).toEqual([]);
    expect(parsed.flags.map((f) => [f.name, f.value])).toEqual([
      ["--max-model-len", "40960"],
      ["--kv-cache-memory-bytes", "8053063680"],
      ["-tp", "2"],
      ["--enforce-eager", null],
      ["--hf-overrides", '{"a": 1}'],
    ]);
    expect(parsed.flags[0]?.spelled).toBe("--max_model_len");
    expect(parsed.positionals.map((p) => p.word)).toEqual(["vllm", "serve", "Qwen/Qwen3-8B"]);
  });

  test("flags of a multi-line value carry their own line", () => {
    const parsed = env('A=1\nSERVE_ARGS="--max-model-len 4096\n  --kv-cache-memory-bytes 1G"\nB=2');
    expect(parsed.flags.map((f) => [f.name, f.line])).toEqual([
      ["--max-model-len", 2],
      ["--kv-cache-memory-bytes", 3],
    ]);
    expect(parsed.entries.get("B")?.line).toBe(4);
  });

  test("an unbalanced quote inside a flag value is a parse problem, not a crash", () => {
    const parsed = env(`SERVE_ARGS='--hf-overrides "{'`);
    expect(parsed.problems).toEqual([expect.objectContaining({ kind: "parse", line: 1 })]);
  });
});

describe("CR-only line ends (old Mac editors)", () => {
  test("a file with no LF reads like its LF twin, lines numbered alike", () => {
    const cr = parseEnv('ENGINE="vllm"\rHOST=h\rSERVE_ARGS="--max-model-len 4096\r  --kv-cache-memory-bytes 1073741824"\r', "x.env");
    const lf = parseEnv('ENGINE="vllm"\nHOST=h\nSERVE_ARGS="--max-model-len 4096\n  --kv-cache-memory-bytes 1073741824"\n', "x.env");
    expect([...cr.entries.values()].map((e) => [e.key, e.value, e.line])).toEqual(
      [...lf.entries.values()].map((e) => [e.key, e.value, e.line]),
    );
    expect(cr.entries.get("ENGINE")?.value).toBe("vllm");
    expect(cr.flags.map((f) => [f.name, f.value, f.line])).toEqual([
      ["--max-model-len", "4096", 3],
      ["--kv-cache-memory-bytes", "1073741824", 4],
    ]);
  });
  test("in an LF file a lone CR stays part of the value, as the shell reads it", () => {
    expect(parseEnv("A='x\ry'\nB=2\n", "x.env").entries.get("A")?.value).toBe("x\ry");
  });
});
