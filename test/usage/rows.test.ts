// Reading one spend row: LiteLLM's timestamps, the token columns, and why a row cannot be used.
import { describe, expect, test } from "vitest";
import { parseTimestamp } from "../../src/units/timestamps.js";
import { keyAliasOf, spendRowOf } from "../../src/usage/row.js";
import { JsonArraySplitter } from "../../src/usage/json-array.js";
import { ServiceMap } from "../../src/usage/services.js";

const T0 = Date.UTC(2026, 9, 5, 22, 26, 1);

describe("timestamps", () => {
  test.each([
    ["2026-10-05T22:26:01Z", T0],
    ["2026-10-05T22:26:01.123Z", T0 + 123],
    ["2026-10-05T22:26:01.123456Z", T0 + 123.456],
    ["2026-10-05 22:26:01.123", T0 + 123], // PostgreSQL's text form; no zone: UTC
    ["2026-10-05T22:26:01", T0],
    ["2026-10-06T00:26:01+02:00", T0],
    ["2026-10-05T20:26:01-0200", T0],
    ["2026-10-05", Date.UTC(2026, 9, 5)],
  ])("%s", (text, ms) => {
    expect(parseTimestamp(text)).toBeCloseTo(ms, 6);
  });
  test.each([
    "",
    "yesterday",
    "2026-13-01T00:00:00Z",
    "2026-02-30T00:00:00Z",
    "2026-10-05T25:00:00Z",
    "2026-10-05T22:26:01.Z",
    "2026-10-05T22:26:01 junk",
    "1759703161",
  ])("refuses %j", (text) => {
    expect(parseTimestamp(text)).toBeNull();
  });
});

describe("a spend row", () => {
  const good = {
    request_id: "r1",
    api_key: "k".repeat(64),
    model: "hosted_vllm/gen-small",
    model_group: "gen-small",
    prompt_tokens: 10,
    completion_tokens: 5,
    startTime: "2026-10-05T22:26:01Z",
    endTime: "2026-10-05T22:26:02Z",
  };

  test("JSON numbers and CSV text read the same", () => {
    const a = spendRowOf(good);
    const b = spendRowOf({ ...good, prompt_tokens: "10", completion_tokens: "5" });
    expect(a).toEqual(b);
    expect(a).toMatchObject({ prompt: 10, completion: 5, start: T0, end: T0 + 1000, modelGroup: "gen-small" });
  });

  test.each([
    [{ prompt_tokens: -1 }, "prompt_tokens: expected a whole number of tokens ≥ 0, got -1"],
    [{ prompt_tokens: 1.5 }, "prompt_tokens: expected a whole number of tokens ≥ 0, got 1.5"],
    [{ completion_tokens: "many" }, 'completion_tokens: expected a whole number of tokens ≥ 0, got "many"'],
    [{ completion_tokens: undefined }, "completion_tokens is missing"],
    [{ startTime: "" }, "startTime is missing"],
    [{ endTime: "soon" }, 'endTime: not a timestamp: "soon" (expected ISO 8601, e.g. 2026-10-05T22:26:01.123Z)'],
    [{ endTime: "2026-10-05T22:26:00Z" }, "endTime 2026-10-05T22:26:00Z is before startTime 2026-10-05T22:26:01Z"],
    [{ model: "", model_group: null }, "neither model_group nor model names the model"],
  ])("%j is skipped: %s", (patch, reason) => {
    expect(spendRowOf({ ...good, ...patch })).toBe(reason);
  });

  test("not an object", () => {
    expect(spendRowOf([1, 2])).toBe("not a row object");
    expect(spendRowOf(42)).toBe("not a row object");
  });

  test("the key's alias comes from metadata, an object in JSON and text in CSV", () => {
    expect(keyAliasOf({ user_api_key_alias: "all-agents-local" })).toBe("all-agents-local");
    expect(keyAliasOf('{"user_api_key_alias": "albok-nemi"}')).toBe("albok-nemi");
    expect(keyAliasOf("{}")).toBeNull();
    expect(keyAliasOf("{broken user_api_key_alias")).toBeNull();
    expect(keyAliasOf(null)).toBeNull();
  });
});

describe("which service a row belongs to", () => {
  const map = new ServiceMap({ "gen-small": ["Qwen/Qwen3-4B-Instruct-2507", "gs-alias"] });
  test.each([
    ["gen-small", "hosted_vllm/gen-small", "gen-small"], // its own name
    ["gs-alias", "x", "gen-small"], // model_group listed under usage.models
    ["", "Qwen/Qwen3-4B-Instruct-2507", "gen-small"], // no group: the model, listed
    ["other", "Qwen/Qwen3-4B-Instruct-2507", "gen-small"], // an unlisted group, a listed model
    ["sec", "openai/gpt-4.1-mini", "sec"], // neither: the group's own name
    ["", "openai/gpt-4.1-mini", "openai/gpt-4.1-mini"],
  ])("model_group %j, model %j → %s", (group, model, service) => {
    expect(map.serviceOf(group, model)).toBe(service);
  });
});

describe("splitting a JSON array as it streams", () => {
  const text = `[\n  {"a": "x]}\\"{", "b": [1, {"c": 2}]},\n  {"a": 2},\n  7, "s,]",\n  {"z": null}\n]\n`;
  const expected = [
    { text: `{"a": "x]}\\"{", "b": [1, {"c": 2}]}`, line: 2 },
    { text: `{"a": 2}`, line: 3 },
    { text: `7`, line: 4 },
    { text: `"s,]"`, line: 4 },
    { text: `{"z": null}`, line: 5 },
  ];
  test.each([1, 2, 3, 7, 1000])("in chunks of %i characters, every element and its line", (size) => {
    const got: { text: string; line: number }[] = [];
    const s = new JsonArraySplitter({ element: (t, line) => got.push({ text: t, line }) });
    for (let i = 0; i < text.length; i += size) s.write(text.slice(i, i + size));
    expect(got).toEqual(expected);
    expect(s.end()).toEqual({ unfinished: null, closed: true });
  });
  test("a file cut short reports the unfinished row and its line", () => {
    const s = new JsonArraySplitter({ element: () => {} });
    s.write('[{"a":1},\n{"b": "cut');
    expect(s.end()).toEqual({ unfinished: { text: '{"b": "cut', line: 2 }, closed: false });
  });
  test("text that is not an array, or text after it, is refused with the line", () => {
    expect(() => new JsonArraySplitter({ element: () => {} }).write('\n\n{"a":1}')).toThrow(/line 3: expected a JSON array/);
    expect(() => new JsonArraySplitter({ element: () => {} }).write("[1]\n]")).toThrow(/line 2: text after the array's closing \]/);
  });
});
