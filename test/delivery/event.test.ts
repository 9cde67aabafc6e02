import { describe, expect, test } from "vitest";
import { planRange } from "../../src/action/event.js";
import { readInputs } from "../../src/action/inputs.js";

const none = { base: null, head: null };
const Z = "0".repeat(40);

describe("planRange: which commits an event gates", () => {
  test.each([
    [
      "pull_request",
      { number: 3, pull_request: { number: 3, base: { sha: "b1" }, head: { sha: "h1" } } },
      none,
      { kind: "range", base: "b1", head: "h1", mergeBase: true, policyRev: "b1" },
    ],
    [
      "pull_request_target",
      { pull_request: { base: { sha: "b1" }, head: { sha: "h1" } } },
      none,
      { kind: "range", base: "b1", head: "h1", mergeBase: true },
    ],
    ["push", { before: "a1", after: "a2" }, none, { kind: "range", base: "a1", head: "a2", mergeBase: false, policyRev: "a1" }],
    [
      "push",
      { before: Z, after: "a2", repository: { default_branch: "trunk" } },
      none,
      { kind: "new-branch", defaultBranch: "trunk", head: "a2" },
    ],
    ["push", { before: Z, after: "a2" }, none, { kind: "new-branch", defaultBranch: null, head: "a2" }],
    ["push", { before: "a1", after: Z, deleted: true }, none, { kind: "nothing" }],
    ["workflow_dispatch", { inputs: { base: "d1", head: "d2" } }, none, { kind: "range", base: "d1", head: "d2", mergeBase: false }],
    [
      "workflow_dispatch",
      { inputs: {}, repository: { default_branch: "main" } },
      none,
      { kind: "new-branch", defaultBranch: "main", head: "SHA" },
    ],
    ["schedule", {}, { base: "i1", head: "i2" }, { kind: "range", base: "i1", head: "i2", mergeBase: false }],
    [
      "pull_request",
      { pull_request: { base: { sha: "b1" }, head: { sha: "h1" } } },
      { base: "i1", head: null },
      { kind: "range", base: "i1", head: "SHA", mergeBase: true },
    ],
  ] as const)("%s %j (inputs %j)", (event, payload, inputs, expected) => {
    expect(planRange(event, payload as never, inputs, "SHA")).toMatchObject(expected);
  });

  test.each([
    ["pull_request", {}, /pull_request event payload has no base.sha/],
    ["schedule", {}, /the schedule event has no range kvgate knows how to read/],
    ["push", { before: "a1" }, /no after sha/],
  ] as const)("%s %j fails with the fix", (event, payload, message) => {
    expect(() => planRange(event, payload as never, none, null)).toThrow(message);
  });
});

describe("readInputs", () => {
  test("shard: I/N with mode: audit; anything else fails with what to write", () => {
    expect(readInputs(get({ mode: "audit", shard: " 2/4 " })).shard).toEqual({ index: 2, count: 4 });
    expect(readInputs(get({ mode: "audit" })).shard).toBeUndefined();
    expect(() => readInputs(get({ mode: "audit", shard: "5/4" }))).toThrow(/input shard must be I\/N with 1 <= I <= N \(got "5\/4"\)/);
    expect(() => readInputs(get({ mode: "audit", shard: "two" }))).toThrow(/input shard must be I\/N/);
    expect(() => readInputs(get({ shard: "1/2" }))).toThrow(/input shard goes with mode: audit/);
  });

  const get = (m: Record<string, string>) => (n: string) => m[n] ?? "";
  test("defaults", () => {
    expect(readInputs(get({}))).toEqual({
      mode: "check",
      base: null,
      head: null,
      unit: "commit",
      config: null,
      failOn: "error",
      sarif: null,
      policyFrom: "base",
    });
  });
  test("values", () => {
    expect(
      readInputs(get({ mode: "audit", "fail-on": "warning", unit: "range", "policy-from": "base", sarif: " k.sarif " })),
    ).toMatchObject({ mode: "audit", failOn: "warning", unit: "range", policyFrom: "base", sarif: "k.sarif" });
  });
  test.each([
    ["mode", "scan"],
    ["unit", "squash"],
    ["fail-on", "notice"],
    ["policy-from", "merge"],
  ])("%s=%s is refused", (name, value) => {
    expect(() => readInputs(get({ [name]: value }))).toThrow(new RegExp(`input ${name} must be one of`));
  });
});
