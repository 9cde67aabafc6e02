// Every way a compose service picks its cards, and the one `gpus` edit (host card indices, at the
// line that decides them) or the notice when kvgate cannot tell which cards Docker gives it.
import { describe, expect, test } from "vitest";
import { CF, gpus, lines, read, reservation, sets } from "./helpers.js";

const svc = (...body: string[]): Record<string, string> => ({
  [CF]: lines("services:", "  coder:", "    image: vllm/vllm-openai:v0.10.2", ...body),
});

describe("placed: a gpus edit", () => {
  test.each([
    [
      "device_ids with capabilities [gpu]",
      reservation("            - driver: nvidia", "              device_ids: ['0', '3']", "              capabilities: [gpu]"),
      "0,3",
      9,
    ],
    [
      "device_ids as a block list of strings",
      reservation("            - capabilities: [gpu]", "              device_ids:", '                - "1"'),
      "1",
      10,
    ],
    [
      "driver nvidia with capabilities",
      reservation("            - driver: nvidia", "              capabilities: [gpu]", "              device_ids: ['2']"),
      "2",
      10,
    ],
    // Each request sets NVIDIA_VISIBLE_DEVICES (moby daemon/nvidia_linux.go setNvidiaGPUs appends it);
    // the toolkit reads the environment as a map, the last value winning (builder.go WithEnv).
    [
      "two requests: the last one's cards",
      reservation(
        "            - capabilities: [gpu]",
        "              device_ids: ['0']",
        "            - capabilities: [gpu]",
        "              device_ids: ['1']",
      ),
      "1",
      11,
    ],
    // moby countToDevices: count N is NVIDIA_VISIBLE_DEVICES=0,…,N-1.
    ["count: 2 is cards 0 and 1", reservation("            - capabilities: [gpu]", "              count: 2"), "0,1", 9],
    [
      "count: 2 with CUDA_VISIBLE_DEVICES=1: card 1",
      [
        "    environment:",
        "      CUDA_VISIBLE_DEVICES: '1'",
        ...reservation("            - capabilities: [gpu]", "              count: 2"),
      ],
      "1",
      5,
    ],
    ["service-level gpus with device_ids", ["    gpus:", "      - driver: nvidia", "        device_ids: ['1']"], "1", 6],
    [
      "CDI device names in devices:",
      ["    devices:", "      - nvidia.com/gpu=0", '      - "nvidia.com/gpu=1"', "      - /dev/fuse:/dev/fuse"],
      "0,1",
      5,
    ],
    [
      "NVIDIA_VISIBLE_DEVICES alone (nvidia runtime)",
      ["    runtime: nvidia", "    environment:", "      NVIDIA_VISIBLE_DEVICES: 2,3"],
      "2,3",
      6,
    ],
    ["CUDA_VISIBLE_DEVICES alone names host cards", ["    environment:", "      - CUDA_VISIBLE_DEVICES=1"], "1", 5],
    // Inside the container the reserved cards are numbered from 0: CUDA_VISIBLE_DEVICES=1 of ['2','3'] is card 3.
    [
      "CUDA_VISIBLE_DEVICES picks among the reserved cards",
      [
        "    environment:",
        "      CUDA_VISIBLE_DEVICES: '1'",
        ...reservation("            - capabilities: [gpu]", "              device_ids: ['2', '3']"),
      ],
      "3",
      5,
    ],
    [
      "CUDA_VISIBLE_DEVICES among NVIDIA_VISIBLE_DEVICES",
      ["    environment:", "      NVIDIA_VISIBLE_DEVICES: 4,5,6", "      CUDA_VISIBLE_DEVICES: 2,0"],
      "6,4",
      6,
    ],
  ])("%s → %s at line %s", (_name, body, value, line) => {
    const r = read(svc(...body));
    expect(gpus(r, "coder")).toEqual([value, line, CF]);
    expect(r.problems).toEqual([]);
    // The card keys become the gpus edit, never a second setting that could disagree with it.
    expect(Object.keys(sets(r, "coder"))).toEqual(["IMAGE"]);
  });

  test("the request is described on the deploy", () => {
    const r = read(
      svc(...reservation("            - driver: nvidia", "              device_ids: ['0', '3']", "              capabilities: [gpu]")),
    );
    expect(r.deploys[0]?.gpu).toEqual({
      deviceIds: ["0", "3"],
      count: null,
      source: "deploy.resources.reservations.devices",
      file: CF,
      line: 9,
    });
  });

  test("CUDA_VISIBLE_DEVICES from an env_file counts (environment wins over it)", () => {
    const files = {
      ...svc("    env_file: gpu.env", ...reservation("            - capabilities: [gpu]", "              device_ids: ['4', '5']")),
      "deploy/gpu.env": "CUDA_VISIBLE_DEVICES=1\n",
    };
    expect(gpus(read(files), "coder")).toEqual(["5", 1, "deploy/gpu.env"]);
  });
});

// Every card of the host: Docker decides, but which cards the host has is the fleet's to say (the
// loader resolves them: test/load/compose-cards.test.ts). The reader hands on the line and the pick.
describe("every card of the host: a CardsLine for the loader, no gpus edit, no notice", () => {
  test.each([
    // moby setNvidiaGPUs: Count < 0 (compose's `all`) is NVIDIA_VISIBLE_DEVICES=all.
    [
      "count: all",
      reservation("            - driver: nvidia", "              count: all", "              capabilities: [gpu]"),
      9,
      "all",
      null,
    ],
    // compose-go transform/devices.go deviceRequestDefaults: neither count nor device_ids is count: all.
    ["neither count nor device_ids", reservation("            - capabilities: [gpu]"), 8, "all", null],
    // compose-go transform/gpus.go: `gpus: all` is one request with count: all.
    ["gpus: all", ["    gpus: all"], 4, "all", null],
    ["devices: nvidia.com/gpu=all (CDI)", ["    devices: [nvidia.com/gpu=all]"], 4, "all", null],
    // The CUDA images set NVIDIA_VISIBLE_DEVICES=all: runtime nvidia without it gives every card.
    ["runtime: nvidia without NVIDIA_VISIBLE_DEVICES", ["    runtime: nvidia"], 4, "all", null],
    ["NVIDIA_VISIBLE_DEVICES=all", ["    environment:", "      NVIDIA_VISIBLE_DEVICES: all"], 5, "NVIDIA_VISIBLE_DEVICES", null],
    // Inside the container the host's cards are 0..N-1: CUDA_VISIBLE_DEVICES=2 is the third of them.
    [
      "runtime: nvidia with CUDA_VISIBLE_DEVICES=2",
      ["    runtime: nvidia", "    environment:", "      CUDA_VISIBLE_DEVICES: '2'"],
      6,
      "CUDA_VISIBLE_DEVICES",
      [2],
    ],
  ])("%s", (_name, body, line, via, picks) => {
    const r = read(svc(...body));
    expect(gpus(r, "coder")).toBeNull();
    expect(r.problems).toEqual([]);
    expect(r.deploys[0]?.cards).toMatchObject({ via, line, ids: [], everyCard: { picks } });
    expect(r.deploys[0]?.gpu?.count).toBe("all");
  });

  test("count: 0 is no card (NVIDIA_VISIBLE_DEVICES=void)", () => {
    const r = read(svc(...reservation("            - capabilities: [gpu]", "              count: 0")));
    expect([gpus(r, "coder"), r.deploys[0]?.cards, r.problems]).toEqual([null, null, []]);
  });
});

describe("not placed: a notice (key GPU), the env file's GPU stays", () => {
  test.each([
    [
      "a UUID",
      reservation("            - capabilities: [gpu]", "              device_ids: ['GPU-f123d1c9-26bb-df9b-1c23-4a731f61d8c7']"),
      9,
      { deviceIds: ["GPU-f123d1c9-26bb-df9b-1c23-4a731f61d8c7"], count: null },
    ],
    // A count no host has (the fuzz found count: 1306952319) is not written out as a list of cards.
    [
      "count: 1306952319",
      reservation("            - capabilities: [gpu]", "              count: 1306952319"),
      9,
      { deviceIds: null, count: 1306952319 },
    ],
    [
      "CUDA_VISIBLE_DEVICES past the reserved cards",
      [
        "    environment:",
        "      CUDA_VISIBLE_DEVICES: '2'",
        ...reservation("            - capabilities: [gpu]", "              device_ids: ['0', '1']"),
      ],
      5,
      { deviceIds: ["0", "1"], count: null },
    ],
  ])("%s", (_name, body, line, request) => {
    const r = read(svc(...body));
    expect(gpus(r, "coder")).toBeNull();
    expect(r.problems.map((p) => [p.kind, p.line, p.key])).toEqual([["unresolved", line, "GPU"]]);
    expect(r.deploys[0]?.gpu).toMatchObject(request);
  });

  test("a request that is not a GPU (capabilities [tpu]) is not a card", () => {
    const r = read(svc(...reservation("            - capabilities: [tpu]", "              count: 2")));
    expect([gpus(r, "coder"), r.deploys[0]?.gpu, r.problems]).toEqual([null, null, []]);
  });

  test("NVIDIA_VISIBLE_DEVICES=none: no cards, no request", () => {
    const r = read(svc("    environment:", "      NVIDIA_VISIBLE_DEVICES: none"));
    expect([gpus(r, "coder"), r.deploys[0]?.gpu, r.problems]).toEqual([null, null, []]);
  });

  test("count together with device_ids is a parse error: docker compose refuses it", () => {
    const r = read(svc(...reservation("            - capabilities: [gpu]", "              count: 1", "              device_ids: ['0']")));
    expect(r.problems.map((p) => [p.kind, p.line])).toEqual([["parse", 9]]);
    expect(gpus(r, "coder")).toBeNull();
  });

  test("an unresolved device id is a notice naming the variable", () => {
    const r = read(svc(...reservation("            - capabilities: [gpu]", "              device_ids: ['${CARD}']")));
    expect(r.problems.map((p) => [p.kind, p.line, p.key])).toEqual([["unresolved", 9, "GPU"]]);
    expect(r.problems[0]?.message).toContain("${CARD}");
    expect(gpus(r, "coder")).toBeNull();
  });

  test("resolved from the .env it is placed", () => {
    const r = read({
      ...svc(...reservation("            - capabilities: [gpu]", "              device_ids: ['${CARD}']")),
      "deploy/.env": "CARD=1\n",
    });
    expect(gpus(r, "coder")).toEqual(["1", 9, CF]);
  });
});
