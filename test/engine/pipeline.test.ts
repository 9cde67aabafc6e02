// The finding pipeline: its steps in order, and what the order guarantees.
import { describe, expect, test } from "vitest";
import { PHASE_STEPS, raise, runPhase } from "../../src/engine/pipeline.js";
import { pipelineContext } from "../../src/engine/run.js";
import { envParse } from "../../src/checks/env-parse.js";
import { defaultPolicy, pack } from "../helpers/rule-tester.js";
import { runMemory } from "../helpers/memory.js";
import { FAKE } from "../secrets/helpers.js";

describe("the finding pipeline", () => {
  test("named phases of named steps, in one order", () => {
    expect(PHASE_STEPS).toEqual({
      identify: ["waivers", "engine-from", "render", "redact", "fingerprint"],
      judge: ["place", "new-only", "statuses", "baseline", "mask"],
      collect: ["dedupe", "sort"],
    });
  });

  test("a report naming a message its rule does not have is an internal error", () => {
    const d = raise(envParse, { message: "nope", data: {} }, null);
    expect(() => runPhase("identify", [d], pipelineContext(defaultPolicy(), pack))).toThrow(
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

  test("the last phase (collect) runs without a context; the others need one", () => {
    expect(runPhase("collect", [])).toEqual([]);
    expect(() => runPhase("identify", [])).toThrow(/the waivers step needs the pipeline context/);
    expect(() => runPhase("judge", [])).toThrow(/the place step needs the pipeline context|the new-only step needs the pipeline context/);
  });
});
