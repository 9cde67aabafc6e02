// What docker compose refuses, kvgate refuses: compose/parse at the line, in compose's own words, and
// nothing of the file deployed. Each expected message is the rule compose applies, cited: the
// Compose Specification's JSON schema (src/compose/schema/compose-spec.json, which compose-go's
// loader.go loadYamlFile checks every file against after interpolation) with compose-go's choice of
// error (schema.go getMostSpecificError: the deepest), compose-go's own checks, and go-yaml's.
import { describe, expect, test } from "vitest";
import { CF, lines, read } from "./helpers.js";

const svc = (...body: string[]): string => lines("services:", "  coder:", "    image: vllm/vllm-openai:v0.10.2", ...body);
const devices = (...item: string[]): string[] => [
  "    deploy:",
  "      resources:",
  "        reservations:",
  "          devices:",
  ...item,
];

describe("the schema: refused at the line, in compose's words", () => {
  test.each([
    [
      // definitions.command: oneOf null | string | array of strings; the deepest error is the item's.
      "an unquoted number in a command list",
      svc('    command: ["--model", "Qwen/Qwen3-8B", "--port", 8000]'),
      4,
      "services.coder.command.3 must be a string (YAML reads the unquoted 8000 as a number: quote it",
    ],
    [
      // definitions.devices.items.device_ids: list_of_strings.
      "integer device_ids",
      svc(...devices("            - capabilities: [gpu]", "              device_ids: [0, 1]")),
      9,
      "services.coder.deploy.resources.reservations.devices.0.device_ids.0 must be a string",
    ],
    [
      // definitions.devices.items.required: ["capabilities"].
      "a device entry without capabilities",
      svc(...devices("            - driver: nvidia", "              count: 1")),
      8,
      "services.coder.deploy.resources.reservations.devices.0 missing property 'capabilities'",
    ],
    [
      // properties.services: patternProperties ^[a-zA-Z0-9._-]+$, additionalProperties false; and
      // interpolation.go Interpolate interpolates values only (out[key] keeps the key as written).
      "a service key containing ${…}",
      lines("services:", "  ${NAME}:", "    image: vllm/vllm-openai:v0.10.2"),
      2,
      "services additional property '${NAME}' not allowed (compose never interpolates a key",
    ],
    [
      // definitions.gpus: oneOf the string "all" | a list of requests (transform/gpus.go only runs after).
      'gpus: "device=1" (the docker run spelling)',
      svc('    gpus: "device=1"'),
      4,
      "services.coder.gpus must be 'all' or a list",
    ],
    [
      // definitions.service: additionalProperties false.
      "an unknown service key",
      svc("    frobnicate: 7"),
      4,
      "services.coder additional property 'frobnicate' not allowed",
    ],
    [
      // compose-go loader_test.go TestNonMappingObject: "services.foo must be a mapping".
      "a service that is a string",
      lines("services:", "  foo: busybox"),
      2,
      "services.foo must be a mapping",
    ],
    [
      // A service written as null is not a mapping either.
      "a service written as null",
      lines("services:", "  idle:"),
      2,
      "services.idle must be a mapping",
    ],
    [
      // compose-go loader_test.go TestNonMappingObject: "services must be a mapping".
      "services that is a list",
      lines("services:", "  - coder"),
      2,
      "services must be a mapping",
    ],
    [
      // compose-go loader_test.go TestNonStringImage: "services.foo.image must be a string".
      "an image that is a list",
      lines("services:", "  foo:", '    image: ["busybox", "latest"]'),
      3,
      "services.foo.image must be a string",
    ],
    [
      // compose-go loader_test.go TestInvalidEnvironmentValue: "… must be a boolean, null, number or string".
      "an environment value that is a list",
      svc("    environment:", '      FOO: ["1"]'),
      5,
      "services.coder.environment.FOO must be a string, a number, a boolean or null",
    ],
    [
      // A healthcheck test is a string or a list of strings: an unquoted true is a boolean.
      "a boolean in a healthcheck test list",
      svc("    healthcheck: { test: [CMD, true] }"),
      4,
      "services.coder.healthcheck.test.1 must be a string",
    ],
  ])("%s → compose/parse at its line", (_name, text, line, message) => {
    const r = read({ [CF]: text });
    expect(r.problems.map((p) => [p.kind, p.file, p.line])).toEqual([["parse", CF, line]]);
    expect(r.problems[0]?.message).toContain(message);
    expect(r.problems[0]?.message).toContain(`docker compose refuses the file ("validating ${CF}`);
    expect(r.deploys).toEqual([]);
  });

  test("a schema error in the override file is placed in the override file", () => {
    const r = read({
      [CF]: svc("    command: [--port, '8000']"),
      "deploy/compose.override.yaml": lines("services:", "  coder:", "    command: [--port, 8001]"),
    });
    expect(r.problems.map((p) => [p.kind, p.file, p.line])).toEqual([["parse", "deploy/compose.override.yaml", 3]]);
    expect(r.problems[0]?.message).toContain("services.coder.command.1 must be a string");
  });

  test("a null that extends fills is valid: compose validates after extends (loader.go: ApplyExtends, then Validate)", () => {
    const r = read({
      [CF]: lines("services:", "  base:", "    image: vllm/vllm-openai:v0.10.2", "  coder:", "    extends: base", "    image: null"),
    });
    expect(r.problems).toEqual([]);
    expect(r.deploys.map((d) => d.composeService)).toEqual(["base", "coder"]);
  });

  test("what the schema accepts passes: x- keys, networks, a quoted port, env values of every scalar type", () => {
    const r = read({
      [CF]: lines(
        "x-notes: hi",
        "services:",
        "  coder:",
        "    image: vllm/vllm-openai:v0.10.2",
        '    command: ["--port", "8000"]',
        "    environment: { A: 1, B: true, C: 2.5, D: text }",
        "    x-owner: ml",
        "networks: { n: {} }",
      ),
    });
    expect(r.problems).toEqual([]);
    expect(r.deploys).toHaveLength(1);
  });
});

describe("compose-go's own checks", () => {
  test.each([
    [
      // validation.go checkDeviceRequest: `"count" and "device_ids" attributes are exclusive`.
      "count and device_ids together",
      svc(...devices("            - capabilities: [gpu]", "              count: 1", "              device_ids: ['0']")),
      9,
      "sets both count and device_ids",
    ],
    [
      // interpolate.go interpolateTypeCastMapping: deploy.replicas toInt (strconv.Atoi).
      "replicas that is not a number",
      svc("    deploy:", '      replicas: "two"'),
      5,
      'error while interpolating services.coder.deploy.replicas: failed to cast to expected type: strconv.Atoi: parsing "two": invalid syntax',
    ],
    [
      // loader/reset.go resolveContainer: `mapping key "image" already defined at line 3`.
      "a key written twice",
      svc("    image: other"),
      4,
      'mapping key "image" already defined at line 3',
    ],
    [
      // loader.go formatInvalidKeyError: `non-string key in services.coder.environment: 1`.
      "a key that is a number",
      svc("    environment:", "      1: x"),
      5,
      "non-string key in services.coder.environment: 1",
    ],
    [
      // go-yaml: an alias must follow its anchor.
      "an alias to an anchor not defined",
      svc("    environment: *base"),
      4,
      "unknown anchor 'base' referenced",
    ],
  ])("%s → compose/parse at its line", (_name, text, line, message) => {
    const r = read({ [CF]: text });
    expect(r.problems.map((p) => [p.kind, p.file, p.line])).toEqual([["parse", CF, line]]);
    expect(r.problems[0]?.message).toContain(message);
    expect(r.deploys.filter((d) => d.gpu !== null)).toEqual([]);
  });
});
