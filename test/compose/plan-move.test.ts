// plan's move text for a compose seat: the line that places it, as that line spells the cards. Each row
// is a compose service on card(s) as written, the move to card 3, and the edit named (file:line).
import { describe, expect, test } from "vitest";
import { CF, lines, read, reservation } from "./helpers.js";
import { seatMoveText } from "../../src/report/plan-move.js";
import type { FleetState } from "../../src/model/types.js";

const svc = (...body: string[]): Record<string, string> => ({
  [CF]: lines("services:", "  coder:", "    image: vllm/vllm-openai:v0.10.2", ...body),
});
const fleetOf = (files: Record<string, string>): FleetState => ({
  services: [],
  tenants: [],
  cards: [],
  ledgerFacts: {},
  paths: [],
  composes: [read(files)],
});

describe("a compose seat moves at its compose line", () => {
  test.each([
    [
      "device_ids under deploy",
      reservation("            - capabilities: [gpu]", "              device_ids: ['0']"),
      `set device_ids: ["3"] at ${CF}:9`,
    ],
    ["device_ids under gpus:", ["    gpus:", "      - device_ids: ['1']"], `set device_ids: ["3"] at ${CF}:5`],
    ["a CDI devices: name", ["    devices:", "      - nvidia.com/gpu=0"], `set nvidia.com/gpu=3 at ${CF}:5`],
    [
      "NVIDIA_VISIBLE_DEVICES in environment",
      ["    runtime: nvidia", "    environment:", "      NVIDIA_VISIBLE_DEVICES: 2"],
      `set NVIDIA_VISIBLE_DEVICES=3 at ${CF}:6`,
    ],
    [
      "CUDA_VISIBLE_DEVICES alone (host card numbers)",
      ["    environment:", "      - CUDA_VISIBLE_DEVICES=1"],
      `set CUDA_VISIBLE_DEVICES=3 at ${CF}:5`,
    ],
    // device_ids ['2','3'] are cards 0 and 1 inside the container: card 3 is CUDA_VISIBLE_DEVICES=1 there.
    [
      "CUDA_VISIBLE_DEVICES among given cards that hold the target",
      [
        "    environment:",
        "      CUDA_VISIBLE_DEVICES: '0'",
        ...reservation("            - capabilities: [gpu]", "              device_ids: ['2', '3']"),
      ],
      `set CUDA_VISIBLE_DEVICES=1 at ${CF}:5`,
    ],
    // The target is not among the given cards: give the container card 3, and pick it (0 inside).
    [
      "CUDA_VISIBLE_DEVICES among given cards without the target",
      [
        "    environment:",
        "      CUDA_VISIBLE_DEVICES: '1'",
        ...reservation("            - capabilities: [gpu]", "              device_ids: ['0', '1']"),
      ],
      `set device_ids: ["3"] at ${CF}:11 and CUDA_VISIBLE_DEVICES=0 at ${CF}:5`,
    ],
  ])("%s", (_name, body, expected) => {
    const files = svc(...body);
    expect(read(files).problems).toEqual([]);
    expect(seatMoveText("coder", 3, fleetOf(files), null)).toBe(expected);
  });

  test("the compose file's edit, made, puts the seat on card 3", () => {
    const files = svc(
      "    environment:",
      "      CUDA_VISIBLE_DEVICES: '1'",
      ...reservation("            - capabilities: [gpu]", "              device_ids: ['0', '1']"),
    );
    const moved = files[CF]!.replace("device_ids: ['0', '1']", 'device_ids: ["3"]').replace(
      "CUDA_VISIBLE_DEVICES: '1'",
      "CUDA_VISIBLE_DEVICES: '0'",
    );
    const d = read({ [CF]: moved }).deploys[0];
    expect(d?.edits.find((e) => e.kind === "gpus")).toMatchObject({ value: "3" });
  });

  // runtime: nvidia gives the container every card (the image's NVIDIA_VISIBLE_DEVICES=all): naming
  // one in its environment is what moves it.
  test("a request for every card (runtime: nvidia): the NVIDIA_VISIBLE_DEVICES to add", () => {
    const state = fleetOf(svc("    runtime: nvidia"));
    expect(seatMoveText("coder", 3, state, null)).toBe(
      `add NVIDIA_VISIBLE_DEVICES=3 to its environment (runtime: nvidia at ${CF}:4 gives it every card)`,
    );
  });

  // count: 1 is card 0 (moby countToDevices): the count becomes the card's device_ids.
  test("a count request: the count becomes device_ids", () => {
    const state = fleetOf(svc(...reservation("            - capabilities: [gpu]", "              count: 1")));
    expect(state.composes?.[0]?.deploys[0]?.cards).toMatchObject({ via: "count", ids: ["0"], line: 9 });
    expect(seatMoveText("coder", 3, state, null)).toBe(`set device_ids: ["3"] in place of its count at ${CF}:9`);
  });

  test("a request for every card: device_ids in its place", () => {
    const state = fleetOf(svc(...reservation("            - capabilities: [gpu]", "              count: all")));
    expect(seatMoveText("coder", 3, state, null)).toBe(`set device_ids: ["3"] in place of its request for every card at ${CF}:9`);
  });
});
