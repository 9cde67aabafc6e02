// Compose seats in the fleet as it runs (the real loader over in-memory files, then the engine): the
// cards Docker gives a container, the containers compose starts, the profiles it starts them under,
// and the files it reads. Each case's expected cards and counts are Docker's and compose-go's,
// worked by hand from the function cited; the gpu/fits pairs show the card sums that follow.
import { describe, expect, test } from "vitest";
import { contextOf, runCase } from "../helpers/rule-tester.js";
import { fourCards, lines, reservation as devices } from "./helpers.js";

const CF = "hosts/gpu1/compose.yaml";
/** Four 48 GiB cards: one Qwen3-8B seat below (about 24.8 GiB) fits a card, two do not. */
const KVGATE = fourCards();
const seat = (name: string, ...body: string[]): string[] => [
  `  ${name}:`,
  "    image: vllm/vllm-openai:v0.10.2",
  '    command: [Qwen/Qwen3-8B, --max-model-len, "40960", --kv-cache-memory-bytes, "8053063680"]',
  ...body,
];
const compose = (...services: string[][]): Record<string, string> => ({
  "kvgate.yaml": KVGATE,
  [CF]: lines("services:", ...services.flat()),
});
async function running(files: Record<string, string>): Promise<Record<string, { gpus: number[]; replicas: number }>> {
  const ctx = await contextOf({ name: "running", files });
  return Object.fromEntries(ctx.after.services.map((s) => [s.name, { gpus: s.gpus, replicas: s.replicas ?? 1 }]));
}

async function overCards(files: Record<string, string>): Promise<string[]> {
  const found = await runCase({ name: "fits", files });
  return found
    .filter((f) => f.rule === "gpu/fits")
    .map((f) => {
      const profile = f.data.compose_profile as string | undefined;
      return `${String(f.data.gpu)}${profile ? ` (${profile})` : ""}`;
    });
}

describe("the cards Docker gives, then the ones vLLM uses", () => {
  test.each([
    // moby daemon/nvidia_linux.go countToDevices: count N is NVIDIA_VISIBLE_DEVICES=0..N-1.
    ["count: 1", devices("            - capabilities: [gpu]", "              count: 1"), [0]],
    [
      "count: 2 (TP 1 still lists both: fleet/tp-mismatch's to judge)",
      devices("            - capabilities: [gpu]", "              count: 2"),
      [0, 1],
    ],
    // count: all is NVIDIA_VISIBLE_DEVICES=all: the host's four cards, of which vLLM (TP 1) takes cuda:0.
    ["count: all, TP 1", devices("            - capabilities: [gpu]", "              count: all"), [0]],
    // The CUDA images set NVIDIA_VISIBLE_DEVICES=all, so runtime: nvidia gives every card too.
    ["runtime: nvidia", ["    runtime: nvidia"], [0]],
    // Inside the container the host's cards are 0..3: CUDA_VISIBLE_DEVICES=2 is host card 2 (the issue's case).
    ["runtime: nvidia + CUDA_VISIBLE_DEVICES=2", ["    runtime: nvidia", "    environment:", "      CUDA_VISIBLE_DEVICES: '2'"], [2]],
    ["gpus: all + CUDA_VISIBLE_DEVICES=3,1", ["    gpus: all", "    environment:", "      CUDA_VISIBLE_DEVICES: '3,1'"], [3, 1]],
    // device_ids ['1','3'] are cuda:0 and cuda:1 inside: CUDA_VISIBLE_DEVICES=1 is host card 3.
    [
      "device_ids ['1','3'] + CUDA_VISIBLE_DEVICES=1",
      [
        ...devices("            - capabilities: [gpu]", "              device_ids: ['1', '3']"),
        "    environment:",
        "      CUDA_VISIBLE_DEVICES: '1'",
      ],
      [3],
    ],
    // compose-go transform/devices.go: neither count nor device_ids is count: all.
    ["a request with capabilities only", devices("            - capabilities: [gpu]"), [0]],
    // count: 0 is NVIDIA_VISIBLE_DEVICES=void: no card.
    ["count: 0", devices("            - capabilities: [gpu]", "              count: 0"), []],
    // A pick past the host's cards: CUDA cannot start there; kvgate does not place it.
    [
      "runtime: nvidia + CUDA_VISIBLE_DEVICES=7 on a 4-card host",
      ["    runtime: nvidia", "    environment:", "      CUDA_VISIBLE_DEVICES: '7'"],
      [],
    ],
  ])("%s → cards %j", async (_name, body, gpus) => {
    expect((await running(compose(seat("coder", ...body)))).coder?.gpus).toEqual(gpus);
  });

  test("tensor parallelism takes the first TP × PP of every card: TP 2 on count: all is cards 0 and 1", async () => {
    const files = compose([
      "  coder:",
      "    image: vllm/vllm-openai:v0.10.2",
      '    command: [Qwen/Qwen3-8B, --tensor-parallel-size, "2", --max-model-len, "8192", --kv-cache-memory-bytes, "4294967296"]',
      "    gpus: all",
    ]);
    expect((await running(files)).coder?.gpus).toEqual([0, 1]);
  });

  test("the issue's case: runtime nvidia + CUDA_VISIBLE_DEVICES=2 sits on card 2 (over with its neighbour there), not card 0", async () => {
    const files = compose(
      seat("picked", "    runtime: nvidia", "    environment:", "      CUDA_VISIBLE_DEVICES: '2'"),
      seat("on2", ...devices("            - capabilities: [gpu]", "              device_ids: ['2']")),
      seat("on0", ...devices("            - capabilities: [gpu]", "              device_ids: ['0']")),
    );
    expect(await overCards(files)).toEqual(["2"]);
  });
});

describe("replicas: each container a seat on the service's cards (compose-go types.go GetScale)", () => {
  test.each([
    [
      "deploy.replicas: 2 on one card: counted twice, over",
      [
        "    deploy:",
        "      replicas: 2",
        "      resources:",
        "        reservations:",
        "          devices:",
        "            - { capabilities: [gpu], device_ids: ['0'] }",
      ],
      2,
      ["0"],
    ],
    ["scale: 2, the same", ["    scale: 2", ...devices("            - { capabilities: [gpu], device_ids: ['0'] }")], 2, ["0"]],
    [
      "replicas: 1 fits",
      [
        "    deploy:",
        "      replicas: 1",
        "      resources:",
        "        reservations:",
        "          devices:",
        "            - { capabilities: [gpu], device_ids: ['0'] }",
      ],
      1,
      [],
    ],
  ])("%s", async (_name, body, replicas, over) => {
    const files = compose(seat("coder", ...body));
    expect((await running(files)).coder?.replicas).toBe(replicas);
    expect(await overCards(files)).toEqual(over);
  });

  test("replicas: 0 starts nothing: the seat does not run, and its card holds only its neighbour", async () => {
    const body = [
      "    deploy:",
      "      replicas: 0",
      "      resources:",
      "        reservations:",
      "          devices:",
      "            - { capabilities: [gpu], device_ids: ['0'] }",
    ];
    const files = compose(seat("idle", ...body), seat("live", ...devices("            - { capabilities: [gpu], device_ids: ['0'] }")));
    expect(Object.keys(await running(files))).toEqual(["live"]);
    expect(await overCards(files)).toEqual([]);
  });
  test("a replica count past any card's room is counted up to 1,024 with a compose/unresolved notice that says so", async () => {
    const body = ["    deploy:", "      replicas: 5000", ...devices("            - { capabilities: [gpu], device_ids: ['0'] }").slice(1)];
    const files = compose(seat("many", ...body));
    expect((await running(files)).many?.replicas).toBe(1024);
    expect(await overCards(files)).toEqual(["0"]);
    const notices = (await runCase({ name: "many", files })).filter((f) => f.rule === "compose/unresolved");
    expect(notices.map((f) => [f.file, f.line])).toEqual([[CF, 6]]);
  });
});

describe("profiles (compose-go types.go HasProfile, cli/options.go WithDefaultProfiles)", () => {
  // Two alternative models for card 0, each fitting alone, over together.
  const alternatives = [
    seat("small", "    profiles: [small]", ...devices("            - { capabilities: [gpu], device_ids: ['0'] }")),
    seat("big", "    profiles: [big]", ...devices("            - { capabilities: [gpu], device_ids: ['0'] }")),
  ];

  test("without COMPOSE_PROFILES, docker compose up starts only the services without a profile; each profile is checked alone", async () => {
    const files = compose(...alternatives);
    expect(Object.keys(await running(files))).toEqual([]);
    expect(await overCards(files)).toEqual([]);
  });

  test("COMPOSE_PROFILES in the .env starts both: over", async () => {
    const files = { ...compose(...alternatives), "hosts/gpu1/.env": "COMPOSE_PROFILES=small,big\n" };
    expect(Object.keys(await running(files)).sort()).toEqual(["big", "small"]);
    expect(await overCards(files)).toEqual(["0"]);
  });

  test("COMPOSE_PROFILES=small starts small alone", async () => {
    const files = { ...compose(...alternatives), "hosts/gpu1/.env": "COMPOSE_PROFILES=small\n" };
    expect(Object.keys(await running(files))).toEqual(["small"]);
  });

  test("a profile whose seat overflows a card with a default service is reported as that profile's", async () => {
    const files = compose(seat("always", ...devices("            - { capabilities: [gpu], device_ids: ['0'] }")), ...alternatives);
    expect(Object.keys(await running(files))).toEqual(["always"]);
    expect((await overCards(files)).sort()).toEqual(["0 (big)", "0 (small)"]);
  });
});

describe("which files make the project (compose-go cli/options.go)", () => {
  const onCard = (card: string): string[] => devices(`            - { capabilities: [gpu], device_ids: ['${card}'] }`);

  test("compose.override.yaml is merged over compose.yaml when COMPOSE_FILE is not set (WithDefaultConfigPath)", async () => {
    const files = {
      ...compose(seat("coder", ...onCard("0"))),
      "hosts/gpu1/compose.override.yaml": lines("services:", "  coder:", ...onCard("1").map((l) => l)),
    };
    expect((await running(files)).coder?.gpus).toEqual([1]);
  });

  test("COMPOSE_FILE in the .env names the files (its separator ':'), and the override is not merged (WithConfigFileEnv)", async () => {
    const files = {
      ...compose(seat("coder", ...onCard("0"))),
      "hosts/gpu1/compose.override.yaml": lines("services:", "  coder:", ...onCard("1")),
      "hosts/gpu1/compose.gpu.yaml": lines("services:", "  coder:", ...onCard("3")),
      "hosts/gpu1/.env": "COMPOSE_FILE=compose.yaml:compose.gpu.yaml\n",
    };
    const ctx = await contextOf({ name: "cf", files });
    expect(ctx.after.services.map((s) => [s.name, s.gpus])).toEqual([["coder", [3]]]);
    // compose.gpu.yaml is part of the project, not a project of its own.
    expect(ctx.after.composes?.map((r) => r.path)).toEqual([CF]);
  });

  test("COMPOSE_PATH_SEPARATOR changes the separator", async () => {
    const files = {
      ...compose(seat("coder", ...onCard("0"))),
      "hosts/gpu1/compose.gpu.yaml": lines("services:", "  coder:", ...onCard("2")),
      "hosts/gpu1/.env": lines("COMPOSE_PATH_SEPARATOR=;", "COMPOSE_FILE=compose.yaml;compose.gpu.yaml"),
    };
    expect((await running(files)).coder?.gpus).toEqual([2]);
  });

  test("COMPOSE_FILE naming a file not in the repository is compose/parse at the .env line", async () => {
    const files = { ...compose(seat("coder", ...onCard("0"))), "hosts/gpu1/.env": "COMPOSE_FILE=compose.yaml:missing.yaml\n" };
    const found = await runCase({ name: "missing", files });
    expect(found.filter((f) => f.rule === "compose/parse").map((f) => [f.file, f.line])).toEqual([["hosts/gpu1/.env", 1]]);
  });

  test("of compose.yaml and docker-compose.yml in one folder, compose reads compose.yaml (DefaultFileNames): the other is a notice", async () => {
    const files = {
      ...compose(seat("coder", ...onCard("0"))),
      "hosts/gpu1/docker-compose.yml": lines("services:", ...seat("ghost", ...onCard("0"))),
    };
    const ctx = await contextOf({ name: "two", files });
    expect(ctx.after.services.map((s) => s.name)).toEqual(["coder"]);
    const found = await runCase({ name: "two", files });
    expect(found.filter((f) => f.rule === "compose/unresolved").map((f) => [f.file, f.line])).toEqual([
      ["hosts/gpu1/docker-compose.yml", 1],
    ]);
  });
});
