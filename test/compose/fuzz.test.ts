// Fuzzing the compose reader: any text, and any shape of services, gives a ComposeRead with deploys
// or problems (every line ≥ 1), never a throw.
import { expect, test } from "vitest";
import fc from "fast-check";
import { stringify } from "yaml";
import { readCompose, type ComposeRead } from "../../src/compose/index.js";
import { envLine, RUNS } from "../fuzz/arbitraries.js";

const CF = "deploy/compose.yaml";

function wellFormed(r: ComposeRead): void {
  expect(r.path).toBe(CF);
  for (const p of r.problems) {
    expect(["parse", "unresolved"]).toContain(p.kind);
    expect(p.line).toBeGreaterThanOrEqual(1);
    expect(p.message.length).toBeGreaterThan(0);
  }
  for (const d of r.deploys) {
    expect(d.playbook).toBe(CF);
    for (const e of d.edits) expect(e.line).toBeGreaterThanOrEqual(1);
  }
}

const text = fc.oneof(
  fc.string({ maxLength: 8 }),
  fc.constantFrom(
    "${X}",
    "${X:-d}",
    "${X:?e}",
    "$$",
    "${",
    "${X:-${Y}}",
    "all",
    "0,1",
    "-1",
    "GPU-abc",
    "sh -c 'vllm serve m'",
    "'",
    "a.env",
    "../x.env",
    "/abs",
    null,
  ),
  fc.integer(),
);
const service = fc.record(
  {
    image: text,
    container_name: text,
    command: fc.oneof(text, fc.array(text, { maxLength: 4 })),
    entrypoint: fc.oneof(text, fc.array(text, { maxLength: 3 })),
    environment: fc.oneof(
      fc.dictionary(fc.constantFrom("MAX_MODEL_LEN", "CUDA_VISIBLE_DEVICES", "NVIDIA_VISIBLE_DEVICES", "A"), text),
      fc.array(text, { maxLength: 3 }),
    ),
    env_file: fc.oneof(text, fc.array(fc.oneof(text, fc.record({ path: text, required: fc.boolean() })), { maxLength: 2 })),
    extends: fc.oneof(
      fc.constantFrom("a", "b", "self"),
      fc.record({ service: fc.constantFrom("a", "b"), file: fc.constantFrom("other.yaml", "compose.yaml", "../../x.yaml") }),
    ),
    gpus: fc.oneof(
      fc.constant("all"),
      fc.array(fc.record({ device_ids: fc.array(text, { maxLength: 2 }), count: text }, { requiredKeys: [] }), { maxLength: 2 }),
    ),
    deploy: fc.record({
      resources: fc.record({
        reservations: fc.record({
          devices: fc.array(
            fc.record(
              {
                capabilities: fc.constantFrom(["gpu"], ["tpu"]),
                device_ids: fc.array(text, { maxLength: 2 }),
                count: text,
                driver: fc.constantFrom("nvidia", "x"),
              },
              { requiredKeys: [] },
            ),
            { maxLength: 2 },
          ),
        }),
      }),
    }),
  },
  { requiredKeys: [] },
);
const composeText = fc.oneof(
  fc
    .record(
      {
        services: fc.dictionary(fc.constantFrom("a", "b", "self", "vllm-coder"), service, { maxKeys: 3 }),
        include: fc.array(fc.constantFrom("other.yaml", "compose.yaml", "/x", "../../y.yaml"), { maxLength: 2 }),
      },
      { requiredKeys: ["services"] },
    )
    .map((v) => stringify(v)),
  fc.jsonValue({ maxDepth: 3 }).map((v) => stringify(v)),
  fc.string({ maxLength: 200 }),
);

test("any compose text gives deploys or problems, never a throw", () => {
  fc.assert(
    fc.property(composeText, composeText, fc.array(envLine, { maxLength: 4 }), (main, other, env) => {
      const files = new Map([
        [CF, main],
        ["deploy/other.yaml", other],
        ["deploy/.env", env.join("\n")],
        ["deploy/a.env", env.join("\n")],
      ]);
      wellFormed(readCompose(CF, files, { services: new Map([["coder", "scripts/coder.env"]]) }));
    }),
    { numRuns: RUNS.medium },
  );
});
