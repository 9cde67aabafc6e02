// Compose interpolation, case by case from the compose spec's "Interpolation" table, and in a compose
// file: values resolve from the `.env` beside it; what stays unresolved is a notice at its line and
// the setting is skipped, never an empty string.
import { describe, expect, test } from "vitest";
import { interpolate, type Lookup } from "../../src/compose/interpolate.js";
import { CF, lines, problems, read, sets } from "./helpers.js";

const vars: Record<string, string> = { SET: "v", EMPTY: "", TAG: "v0.10.2", LEN: "32768" };
const lookup: Lookup = (n) => (n in vars ? { state: "set", value: vars[n] as string } : { state: "unset" });
const show = (text: string): string => {
  const r = interpolate(text, lookup);
  return r.ok
    ? r.value
    : r.kind === "invalid"
      ? "INVALID"
      : `UNRESOLVED ${r.vars.join(",")}${r.required !== undefined ? ` (${r.required})` : ""}`;
};

// Columns: the spec's "VAR has value" (SET), "VAR is empty" (EMPTY), "VAR has nonexist" (NOPE); a
// nonexistent variable without a default is unresolved (Docker would take the deploy host's shell).
describe.each([
  ["${X}", "v", "", "UNRESOLVED NOPE"],
  ["${X:-d}", "v", "d", "d"],
  ["${X-d}", "v", "", "d"],
  ["${X:?need X}", "v", "UNRESOLVED EMPTY (need X)", "UNRESOLVED NOPE (need X)"],
  ["${X?need X}", "v", "", "UNRESOLVED NOPE (need X)"],
  ["${X:+r}", "r", "", ""],
  ["${X+r}", "r", "r", ""],
  ["$X", "v", "", "UNRESOLVED NOPE"],
])("%s", (template, whenSet, whenEmpty, whenMissing) => {
  test.each([
    ["SET", whenSet],
    ["EMPTY", whenEmpty],
    ["NOPE", whenMissing],
  ])("X=%s → %s", (name, expected) => {
    expect(show(template.replace(/X/g, name).replace(/need NOPE|need SET|need EMPTY/, "need X"))).toBe(expected);
  });
});

test.each([
  ["$$", "$"],
  ["$$SET", "$SET"],
  ["echo $$HOSTNAME and ${SET}", "echo $HOSTNAME and v"],
  ["cost: 5$", "cost: 5$"],
  ["$1 $( $ x", "$1 $( $ x"],
  ["vllm/vllm-openai:${TAG}", "vllm/vllm-openai:v0.10.2"],
  ["${NOPE:-${SET}}", "v"],
  ["${NOPE:-${NOPE2:-deep}}", "deep"],
  ["${NOPE:-${LEN}}-${SET}", "32768-v"],
  ["${NOPE:-a}${NOPE:-b}", "ab"],
  ["${NOPE:-}", ""],
  ['${NOPE:-{"k": 1\\}}', '{"k": 1\\}'],
  ["${NOPE?$SET}", "UNRESOLVED NOPE (v)"],
  ["${SET:-${NOPE}}", "v"],
  ["${NOPE:-${NOPE2}}", "UNRESOLVED NOPE2"],
  ["${", "INVALID"],
  ["${SET", "INVALID"],
  ["${1X}", "INVALID"],
  ["${SET/a/b}", "INVALID"],
  ["${}", "INVALID"],
])("%s → %s", (text, expected) => {
  expect(show(text)).toBe(expected);
});

// Where a `${` ends, as compose-go's template.go finds it: the pattern's `.*` to the last `}` of the
// line, then getFirstBraceClosingIndex (the first `}` that balances every `{`); the rest of the match
// is interpolated on its own. Expected values worked through those two functions by hand.
test.each([
  // The issue's case: a JSON default with A set is A's value, no stray `}`.
  ['${SET:-{"max_new_tokens":1024}}', "v"],
  ['${NOPE:-{"max_new_tokens":1024}}', '{"max_new_tokens":1024}'],
  ['--override-generation-config ${SET:-{"max_new_tokens":1024}} --port 8000', "--override-generation-config v --port 8000"],
  // A `}` past the balanced one is text after the variable.
  ["${SET:-a}}", "v}"],
  // No balancing `}` in the match: the match ends at the line's last `}` (the default is `{x`).
  ["${NOPE:-{x}", "{x"],
  // Two variables on a line: the first ends at its own balanced `}`.
  ["${NOPE:-a} and ${SET}", "a and v"],
  // Go's `.` stops at a newline: a `}` only on the next line closes nothing.
  ["${NOPE:-a\nb}", "INVALID"],
])("template.go: %s → %s", (text, expected) => {
  expect(show(text)).toBe(expected);
});

test("what is unknown is marked in the partial text, so the rest of a value is still known", () => {
  expect(interpolate("--model m --port ${NOPE} --max-model-len ${LEN}", lookup)).toEqual({
    ok: false,
    kind: "unresolved",
    vars: ["NOPE"],
    partial: "--model m --port \u0001NOPE\u0002 --max-model-len 32768",
  });
});

test("a variable whose own .env value is unresolved stays unresolved, naming the root variable", () => {
  const l: Lookup = (n) => (n === "A" ? { state: "unknown", vars: ["ROOT"] } : { state: "unset" });
  expect(interpolate("${A:-d}", l)).toMatchObject({ ok: false, kind: "unresolved", vars: ["ROOT"] });
  expect(interpolate("$A", l)).toMatchObject({ ok: false, kind: "unresolved", vars: ["ROOT"] });
});

describe("in a compose file, from the .env beside it", () => {
  const compose = lines(
    "services:", //                                                   1
    "  coder:", //                                                    2
    "    image: vllm/vllm-openai:${VLLM_TAG:-v0.9.0}", //             3
    "    environment:", //                                            4
    "      MAX_MODEL_LEN: ${LEN}", //                                 5
    "      KV_CACHE_MEMORY_BYTES: ${KV:-4G}", //                      6
    "      GPU_MEMORY_UTILIZATION: ${UTIL:?set UTIL in .env}", //     7
    "      HF_HOME: $$HOME/models", //                                8
    "      TP: ${TP-1}", //                                           9
  );

  test("values come from deploy/.env; defaults fill what it lacks", () => {
    const r = read({ [CF]: compose, "deploy/.env": lines("VLLM_TAG=v0.10.2", "LEN=32768", "UTIL=0.9", "TP=") });
    expect(sets(r, "coder")).toEqual({
      MAX_MODEL_LEN: ["32768", 5],
      KV_CACHE_MEMORY_BYTES: ["4G", 6],
      GPU_MEMORY_UTILIZATION: ["0.9", 7],
      HF_HOME: ["$HOME/models", 8],
      TP: ["", 9],
      IMAGE: ["vllm/vllm-openai:v0.10.2", 3],
    });
    expect(r.problems).toEqual([]);
    expect(r.files).toEqual([CF, "deploy/.env"]);
  });

  test("without a .env: defaults resolve; the rest is a notice naming the variable, file and line, and is skipped", () => {
    const r = read({ [CF]: compose });
    expect(sets(r, "coder")).toEqual({
      KV_CACHE_MEMORY_BYTES: ["4G", 6],
      HF_HOME: ["$HOME/models", 8],
      TP: ["1", 9],
      IMAGE: ["vllm/vllm-openai:v0.9.0", 3],
    });
    expect(r.problems.map((p) => [p.kind, p.file, p.line, p.key])).toEqual([
      ["unresolved", CF, 5, "MAX_MODEL_LEN"],
      ["unresolved", CF, 7, "GPU_MEMORY_UTILIZATION"],
    ]);
    expect(r.problems[0]?.message).toContain("${LEN}");
    expect(r.problems[1]?.message).toContain("required (set UTIL in .env)");
  });

  test("a .env in another folder is not the one Compose reads", () => {
    const r = read({ [CF]: compose, ".env": lines("LEN=1", "UTIL=0.5") });
    expect(problems(r)).toEqual([
      ["unresolved", CF, 5],
      ["unresolved", CF, 7],
    ]);
  });

  test(".env values interpolate earlier ones; single-quoted ones are literal", () => {
    const r = read({
      [CF]: lines("services:", "  a:", "    environment:", "      - A=${BASE}", "      - B=${LIT}", "      - C=${QUOTED}"),
      "deploy/.env": lines("N=32", "BASE=${N}768", "LIT='${N}'", 'QUOTED="${N}k"'),
    });
    expect(sets(r, "a")).toEqual({ A: ["32768", 4], B: ["${N}", 5], C: ["32k", 6] });
  });

  test("an invalid ${ is a parse error at its line: docker compose refuses the file", () => {
    const r = read({ [CF]: lines("services:", "  a:", "    image: x", "    command: echo ${oops", "") });
    expect(problems(r)).toEqual([["parse", CF, 4]]);
    expect(r.deploys).toEqual([]);
  });

  test("keys are not interpolated (compose spec: interpolation applies to values only)", () => {
    const r = read({ [CF]: lines("services:", "  a:", "    environment:", "      ${K}: 1"), "deploy/.env": "K=X\n" });
    expect(sets(r, "a")).toEqual({ "${K}": ["1", 4] });
  });
});
