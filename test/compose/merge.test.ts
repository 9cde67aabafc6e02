// How `extends` and the override file combine a service, case by case against the compose
// specification (docker/docs content/reference/compose-file: services.md § extends "Merging service
// definitions", merge.md) and the reference implementation docker compose runs (compose-go
// override/merge.go: extends and multi-file merges go through one MergeYaml). Docker is not run here:
// each row states what `docker compose config` prints for the service, as the spec writes it.
import { describe, expect, test } from "vitest";
import { CF, flags, gpus, lines, read, sets } from "./helpers.js";

interface Case {
  /** The spec section the expectation is taken from. */
  spec: string;
  /** The base service `common` (lines 3..), and the service `cli` that extends it. */
  base: string[];
  cli: string[];
  sets?: Record<string, (string | number)[]>;
  command?: string | null;
  gpus?: [string, number] | null;
}

// Line numbers: 1 `services:`, 2 `  common:`, then the base's lines, then `  cli:`, `    extends: common`,
// then the cli's lines. `at(n)` is line n of the cli's body; base lines start at 3.
const CASES: Record<string, Case> = {
  "mappings: the main service's keys override, the others stay (environment, map form)": {
    spec: "services.md § extends › Mappings (the common/cli example: PORT 8080, TZ utc)",
    base: ["    image: busybox", "    environment:", "      TZ: utc", "      PORT: 80"],
    cli: ["    environment:", "      PORT: 8080"],
    sets: { TZ: ["utc", 5], PORT: ["8080", 10], IMAGE: ["busybox", 3] },
  },
  "the same with array syntax": {
    spec: 'services.md § extends › Mappings: "The same output is produced if array syntax is used"',
    base: ["    image: busybox", "    environment:", "      - TZ=utc", "      - PORT=80"],
    cli: ["    environment:", "      - PORT=8080"],
    sets: { TZ: ["utc", 5], PORT: ["8080", 10], IMAGE: ["busybox", 3] },
  },
  "environment in map form over list form merges by variable": {
    spec: "services.md § extends › Mappings (environment is a mapping); compose-go mergeKeyValueSequence",
    base: ["    environment:", "      - MAX_MODEL_LEN=16384", "      - TP=1"],
    cli: ["    environment:", "      MAX_MODEL_LEN: 32768"],
    sets: { MAX_MODEL_LEN: ["32768", 9], TP: ["1", 5] },
  },
  "scalars: the main service's value wins": {
    spec: "services.md § extends › Scalars",
    base: ["    image: vllm/vllm-openai:v0.9.0"],
    cli: ["    image: vllm/vllm-openai:v0.10.2"],
    sets: { IMAGE: ["vllm/vllm-openai:v0.10.2", 6] },
  },
  "a key the main service does not set is inherited, at the base's line": {
    spec: 'services.md § extends › Mappings: "Keys that aren\'t overridden are included as is"',
    base: ["    image: vllm/vllm-openai:v0.10.2", "    command: --max-model-len 8192"],
    cli: ["    environment:", "      TP: 1"],
    sets: { TP: ["1", 8], IMAGE: ["vllm/vllm-openai:v0.10.2", 3] },
    command: "--max-model-len 8192",
  },
  "command is replaced, not appended": {
    spec: "merge.md § Exceptions › Shell commands (command: [echo, bar] over [echo, foo])",
    base: ["    command: [--model, m, --max-model-len, '8192']"],
    cli: ["    command: [--model, m, --max-model-len, '32768']"],
    command: "--model m --max-model-len 32768",
  },
  "entrypoint is replaced, not appended": {
    spec: "merge.md § Exceptions › Shell commands",
    base: ["    entrypoint: [python3, -m, vllm.entrypoints.openai.api_server]"],
    cli: ["    entrypoint: [vllm, serve]"],
    command: "vllm serve",
  },
  "command: null in the main service falls back to the image's command": {
    spec: "services.md § command (null: the image's default); compose-go: command merges by override, null included",
    base: ["    command: --max-model-len 8192"],
    cli: ["    command: null"],
    command: null,
  },
  "any other null keeps the base's value": {
    spec: "services.md § extends › Scalars; compose-go MergeYaml: a nil override keeps the base",
    base: ["    image: vllm/vllm-openai:v0.10.2"],
    cli: ["    image: null"],
    sets: { IMAGE: ["vllm/vllm-openai:v0.10.2", 3] },
  },
  // Two requests after the merge: each sets NVIDIA_VISIBLE_DEVICES (moby setNvidiaGPUs) and the
  // toolkit reads the last (nvidia-container-toolkit builder.go WithEnv): the container gets card 1.
  "sequences append (a second GPU request, the one Docker applies last)": {
    spec: "merge.md § Sequence; services.md § extends › Sequences (referenced items first)",
    base: [
      "    deploy:",
      "      resources:",
      "        reservations:",
      "          devices:",
      "            - capabilities: [gpu]",
      "              device_ids: ['0']",
    ],
    cli: [
      "    deploy:",
      "      resources:",
      "        reservations:",
      "          devices:",
      "            - capabilities: [gpu]",
      "              device_ids: ['1']",
    ],
    gpus: ["1", 16],
  },
  "nested mappings merge key by key (deploy.resources)": {
    spec: "merge.md § Mapping (applied at every level)",
    base: [
      "    deploy:",
      "      resources:",
      "        reservations:",
      "          devices:",
      "            - capabilities: [gpu]",
      "              device_ids: ['2']",
    ],
    cli: ["    deploy:", "      resources:", "        limits:", "          memory: 64g"],
    gpus: ["2", 8],
  },
  "env_file appends: the base's file first, the main one's after it (and wins)": {
    spec: "services.md § extends › Sequences (env_file in list syntax); services.md § env_file (last file wins)",
    base: ["    env_file: [a.env]"],
    cli: ["    env_file: [b.env]"],
    sets: { TP: ["2", 1, "deploy/b.env"], HOST: ["fv-ml1", 2, "deploy/a.env"] },
  },
  "the same env_file twice is read once": {
    spec: 'compose-go appendWithoutDuplicates ("the same env_file applied twice")',
    base: ["    env_file: a.env"],
    cli: ["    env_file: a.env"],
    sets: { TP: ["1", 1, "deploy/a.env"], HOST: ["fv-ml1", 2, "deploy/a.env"] },
  },
  "!reset removes an inherited variable": {
    spec: "merge.md § Reset value (FOO: !reset null)",
    base: ["    environment:", "      FOO: BAR", "      TP: 2"],
    cli: ["    environment:", "      FOO: !reset null"],
    sets: { TP: ["2", 5] },
  },
  "!reset removes an inherited command": {
    spec: "merge.md § Reset value",
    base: ["    command: --max-model-len 8192"],
    cli: ["    command: !reset null"],
    command: null,
  },
  "!override replaces a mapping whole": {
    spec: "merge.md § Replace value (ports: !override)",
    base: ["    environment:", "      FOO: BAR", "      TP: 2"],
    cli: ["    environment: !override", "      TP: 4"],
    sets: { TP: ["4", 9] },
  },
};

function compose(c: Case): string {
  return lines("services:", "  common:", ...c.base, "  cli:", "    extends: common", ...c.cli);
}

describe("extends: the spec's merge cases", () => {
  test.each(Object.entries(CASES))("%s", (_name, c) => {
    const r = read({ [CF]: compose(c), "deploy/a.env": "TP=1\nHOST=fv-ml1\n", "deploy/b.env": "TP=2\n" });
    expect(r.problems).toEqual([]);
    if (c.sets) expect(sets(r, "cli")).toEqual(c.sets);
    if (c.command !== undefined) expect(flags(r, "cli")?.value ?? null).toBe(c.command);
    if (c.gpus !== undefined) expect(gpus(r, "cli")).toEqual(c.gpus ? [...c.gpus, CF] : null);
    // The base service is a deploy of its own, unchanged by the one that extends it.
    expect(r.deploys.map((d) => d.composeService)).toEqual(["common", "cli"]);
  });

  test("a chain is merged to the end (base → common → cli)", () => {
    // services.md § extends: cli gets `user` from common, which gets it from base.
    const r = read({
      [CF]: lines(
        "services:",
        "  base:",
        "    image: busybox",
        "    environment: { TP: 1 }",
        "  common:",
        "    extends: base",
        "    environment: { HOST: h }",
        "  cli:",
        "    extends: { service: common }",
      ),
    });
    expect(sets(r, "cli")).toEqual({ TP: ["1", 4], HOST: ["h", 7], IMAGE: ["busybox", 3] });
  });
});

describe("the override file: compose.override.yaml over compose.yaml", () => {
  // merge.md and the multiple-compose-files guide: `docker compose up` reads compose.yaml and the
  // optional compose.override.yaml beside it, merged with the same rules.
  const base = lines(
    "services:", //                                    1
    "  coder:", //                                     2
    "    image: vllm/vllm-openai:v0.10.2", //          3
    "    environment:", //                             4
    "      MAX_MODEL_LEN: 16384", //                   5
    "      TP: 1", //                                  6
    "    command: [--max-model-len, '16384']", //      7
  );
  const override = lines(
    "services:", //                                    1
    "  coder:", //                                     2
    "    environment:", //                             3
    "      - MAX_MODEL_LEN=32768", //                  4
    "    command: [--max-model-len, '32768']", //      5
  );

  test("environment merges by variable, command is replaced, each at the line of the file that sets it", () => {
    const r = read({ [CF]: base, "deploy/compose.override.yaml": override });
    const O = "deploy/compose.override.yaml";
    expect(sets(r, "coder")).toEqual({ MAX_MODEL_LEN: ["32768", 4, O], TP: ["1", 6], IMAGE: ["vllm/vllm-openai:v0.10.2", 3] });
    expect(flags(r, "coder")).toEqual({ value: "--max-model-len 32768", line: 5, file: O, wordLines: [5, 5] });
    expect(r.files).toEqual([CF, O]);
    expect(r.composeFiles).toEqual([O]);
  });

  test("docker-compose.yml takes docker-compose.override.yml; a file with another name takes none", () => {
    const d = read({ "deploy/docker-compose.yml": base, "deploy/docker-compose.override.yml": override }, "deploy/docker-compose.yml");
    expect(sets(d, "coder", "deploy/docker-compose.yml").MAX_MODEL_LEN).toEqual(["32768", 4, "deploy/docker-compose.override.yml"]);
    const other = read({ "deploy/compose.gpu.yaml": base, "deploy/compose.override.yaml": override }, "deploy/compose.gpu.yaml");
    expect(sets(other, "coder", "deploy/compose.gpu.yaml").MAX_MODEL_LEN).toEqual(["16384", 5]);
  });
});

describe("YAML anchors, aliases and merge keys", () => {
  const text = lines(
    "x-vllm: &vllm", //                                           1
    "  image: vllm/vllm-openai:v0.10.2", //                       2
    "  environment: &env", //                                     3
    "    HF_HOME: /models", //                                    4
    "    MAX_MODEL_LEN: 16384", //                                5
    "  deploy: &gpu0", //                                         6
    "    resources:", //                                          7
    "      reservations:", //                                     8
    "        devices:", //                                        9
    "          - capabilities: [gpu]", //                         10
    "            device_ids: ['0']", //                           11
    "x-tp2: &tp2", //                                             12
    "  environment:", //                                          13
    "    TP: 2", //                                               14
    "services:", //                                               15
    "  coder:", //                                                16
    "    <<: *vllm", //                                           17
    "    environment:", //                                        18
    "      <<: *env", //                                          19
    "      MAX_MODEL_LEN: 32768", //                              20
    "  voices:", //                                               21
    "    <<: [*vllm, *tp2]", //                                   22
    "    deploy: *gpu0", //                                       23
  );

  test("merged values are read at the anchor's lines; explicit keys win over merged ones", () => {
    const r = read({ [CF]: text });
    expect(sets(r, "coder")).toEqual({ MAX_MODEL_LEN: ["32768", 20], HF_HOME: ["/models", 4], IMAGE: ["vllm/vllm-openai:v0.10.2", 2] });
    expect(gpus(r, "coder")).toEqual(["0", 11, CF]);
    expect(r.problems).toEqual([]);
  });

  test("<<: [*a, *b]: the first source of a key wins (YAML merge key spec), an alias reads at its anchor", () => {
    const r = read({ [CF]: text });
    // environment comes from *vllm (listed first), not *tp2.
    expect(sets(r, "voices")).toEqual({ HF_HOME: ["/models", 4], MAX_MODEL_LEN: ["16384", 5], IMAGE: ["vllm/vllm-openai:v0.10.2", 2] });
    expect(gpus(r, "voices")).toEqual(["0", 11, CF]);
  });

  test("x- extension fields are not services", () => {
    expect(read({ [CF]: text }).deploys.map((d) => d.composeService)).toEqual(["coder", "voices"]);
  });
});

describe("several YAML documents in one file", () => {
  // compose-go loader (TestLoadMultiDocumentYaml): each document is a layer, merged in order; a
  // trailing `---` is an empty document and skipped.
  test("documents merge in order, each value at its own line", () => {
    const r = read({
      [CF]: lines(
        "services:",
        "  a:",
        "    image: x",
        "    environment: { A: 1, B: 1 }",
        "---",
        "services:",
        "  a:",
        "    environment:",
        "      B: 2",
        "---",
      ),
    });
    expect(sets(r, "a")).toEqual({ A: ["1", 4], B: ["2", 9], IMAGE: ["x", 3] });
    expect(r.problems).toEqual([]);
  });

  test("an error in a later document is reported at its line in the file", () => {
    const r = read({ [CF]: lines("services:", "  a:", "    image: x", "---", "services:", "  b: [", "  c: 1") });
    expect(r.problems.map((p) => [p.kind, p.line])).toEqual([["parse", 7]]);
  });
});
