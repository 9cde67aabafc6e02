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

test("any graph of includes and extends (diamonds, cycles, a file pulled in twice) ends, reading each file a bounded number of times", () => {
  const names = ["compose.yaml", "f1.yaml", "f2.yaml", "f3.yaml", "f4.yaml", "f5.yaml"];
  const file = fc.record({
    include: fc.array(fc.constantFrom(...names), { maxLength: 4 }),
    extendsFile: fc.option(fc.constantFrom(...names)),
    documents: fc.integer({ min: 1, max: 3 }),
  });
  fc.assert(
    fc.property(fc.array(file, { minLength: names.length, maxLength: names.length }), (shapes) => {
      const texts = new Map<string, string>();
      shapes.forEach((s, i) => {
        const svc = `s${i}`;
        const def: Record<string, unknown> = { image: "vllm/vllm-openai:v0.11.0", command: ["--model", "m"] };
        if (s.extendsFile !== null) def.extends = { file: s.extendsFile, service: "s0" };
        const doc = stringify({ ...(s.include.length > 0 ? { include: s.include } : {}), services: { [svc]: def } });
        texts.set(`deploy/${names[i]}`, Array.from({ length: s.documents }, () => doc).join("---\n"));
      });
      let reads = 0;
      const r = readCompose(CF, (p) => {
        reads++;
        return texts.get(p) ?? null;
      });
      wellFormed(r);
      // A diamond read once per path through it was exponential in the depth; a bounded reader is not.
      expect(reads).toBeLessThan(names.length * 40);
    }),
    { numRuns: RUNS.medium },
  );
});

test("a 24-level diamond of includes (each file including the next twice) is read in linear time", () => {
  const depth = 24;
  const texts = new Map<string, string>();
  const name = (i: number) => `deploy/${i === 0 ? "compose.yaml" : `f${i}.yaml`}`;
  for (let i = 0; i < depth; i++) {
    const next = i + 1 < depth ? `include:\n  - f${i + 1}.yaml\n  - f${i + 1}.yaml\n` : "";
    texts.set(name(i), `${next}services:\n  s${i}:\n    image: vllm/vllm-openai:v0.11.0\n`);
  }
  let reads = 0;
  const started = Date.now();
  const r = readCompose(name(0), (p) => {
    reads++;
    return texts.get(p) ?? null;
  });
  // Read once per path through the diamonds, it was 2^24 reads (it never ended). Now a handful per file.
  expect(reads).toBeLessThan(depth * 10);
  expect(Date.now() - started).toBeLessThan(2000);
  wellFormed(r);
});

test.each([
  ["20,000 `---` documents in 300 KB (it never ended)", `services:\n  a:\n    image: x\n${"---\nservices: {}\n".repeat(20000)}`],
  ["50,000 nested `[`", `services:\n  a:\n    image: x\n    command: ${"[".repeat(50000)}${"]".repeat(50000)}\n`],
])("a compose file of %s is refused at once, with a line", (_, text) => {
  const started = Date.now();
  const r = readCompose(CF, new Map([[CF, text]]));
  expect(Date.now() - started).toBeLessThan(2000);
  expect(r.deploys).toEqual([]);
  expect(r.problems.length).toBeGreaterThanOrEqual(1);
  expect(r.problems[0]).toMatchObject({ kind: "parse", file: CF });
  expect(r.problems[0]?.line).toBeGreaterThanOrEqual(1);
});
