// The finding pipeline: its steps in order, and what the order guarantees.
import { describe, expect, test } from "vitest";
import { PIPELINE, STEP_NAMES, raise, runSteps } from "../../src/engine/pipeline.js";
import { pipelineContext } from "../../src/engine/run.js";
import { envParse } from "../../src/checks/env-parse.js";
import { defaultPolicy, pack } from "../helpers/rule-tester.js";
import { runMemory } from "../helpers/memory.js";
import { FAKE } from "../secrets/helpers.js";

describe("the finding pipeline", () => {
  test("one ordered list of named steps", () => {
    expect(PIPELINE.map((s) => s.name)).toEqual([
      "render",
      "redact",
      "fingerprint",
      "place",
      "baseline",
      "statuses",
      "mask",
      "dedupe",
      "sort",
    ]);
    expect([...STEP_NAMES]).toEqual(PIPELINE.map((s) => s.name));
  });

  test("a report naming a message its rule does not have is an internal error", () => {
    const d = raise(envParse, { message: "nope", data: {} }, null);
    expect(() => runSteps([d], pipelineContext(defaultPolicy(), pack), "render", "render")).toThrow(
      /check env\/parse reported unknown message id "nope"/,
    );
  });

  test("a report naming an unregistered rule is an internal error", () => {
    expect(() => raise(envParse, { rule: "env/nope", message: "bad", data: {} }, null)).toThrow(
      /check env\/parse reported unregistered rule env\/nope/,
    );
  });

  test("mask runs after statuses: a waiver's reason is masked like every shown text", async () => {
    const f = await runMemory({
      before: {},
      after: { "scripts/a.env": "A=1\nA=2\n" },
      trailers: [{ key: "Kvgate-Waive", value: `env/duplicate-key see ${FAKE.ghp}` }],
    });
    const d = f.find((x) => x.rule === "env/duplicate-key");
    expect(d?.status).toBe("waived");
    expect(d?.reason).toContain(`see ${FAKE.ghp.slice(0, 4)}…`);
    expect(JSON.stringify(f)).not.toContain(FAKE.ghp);
  });

  test("the last steps (dedupe, sort) run without a context; the others need one", () => {
    expect(runSteps([], undefined, "dedupe", "sort")).toEqual([]);
    expect(() => runSteps([], undefined, "render", "render")).toThrow(/the render step needs the pipeline context/);
  });
});
