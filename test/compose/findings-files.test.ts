// A seat only a compose file defines has no env file: every finding about it must point at a file of
// the repository (its compose key, or the line that sets the value), never at the env file it would
// have (scripts/<name>.env). One fleet of compose-only seats, each broken in another way, run through
// every rule.
import { expect, test } from "vitest";
import { runCase } from "../helpers/rule-tester.js";
import { fourCards, lines } from "./helpers.js";

const CF = "hosts/gpu1/compose.yaml";
const onCard = (card: string): string[] => [
  "    deploy:",
  "      resources:",
  "        reservations:",
  `          devices: [{ capabilities: [gpu], device_ids: ["${card}"] }]`,
];
const seat = (name: string, command: string, ...body: string[]): string[] => [
  `  ${name}:`,
  "    image: vllm/vllm-openai:v0.10.2",
  `    command: ${command}`,
  ...body,
];

test("every finding about a compose-only seat points at a file in the repository", async () => {
  const files = {
    "kvgate.yaml": fourCards(),
    [CF]: lines(
      "services:",
      ...seat(
        "tp",
        "[Qwen/Qwen3-8B, --tensor-parallel-size, '2', --max-model-len, '8192', --kv-cache-memory-bytes, '4294967296']",
        ...onCard("0"),
      ),
      ...seat("nomodel", "[acme/not-a-model, --max-model-len, '8192']", ...onCard("0")),
      ...seat("auto", "[Qwen/Qwen3-8B, --max-model-len, auto]", ...onCard("2")),
      ...seat("short", "[Qwen/Qwen3-8B, --max-model-len, '40960', --kv-cache-memory-bytes, '1073741824']", ...onCard("2")),
      ...seat("nocard", "[Qwen/Qwen3-8B, --max-model-len, '8192', --kv-cache-memory-bytes, '4294967296']"),
      ...seat("big1", "[Qwen/Qwen3-8B, --max-model-len, '40960', --kv-cache-memory-bytes, '8053063680']", ...onCard("1")),
      ...seat("big2", "[Qwen/Qwen3-8B, --max-model-len, '40960', --kv-cache-memory-bytes, '8053063680']", ...onCard("1")),
      ...seat("units", "[Qwen/Qwen3-8B, --max-model-len, '8192', --kv-cache-memory-bytes, 22GiB]", ...onCard("3")),
      ...seat("shell", `sh -c "vllm serve Qwen/Qwen3-8B --max-model-len $\${MAX_LEN}"`, ...onCard("3")),
      ...seat("where", "[Qwen/Qwen3-8B, --max-model-len, '8192']", "    environment: { HOST: nope }"),
    ),
  };
  const found = await runCase({ name: "compose-only", files });
  const rules = [...new Set(found.map((f) => f.rule))].sort();
  // The fleet is broken in each of these ways (so the check below covers them).
  expect(rules).toEqual(
    expect.arrayContaining([
      "engine/bad-value",
      "engine/unknown-model",
      "fleet/tp-mismatch",
      "fleet/unknown-card",
      "fleet/unknown-host",
      "gpu/fits",
      "kv/auto-context",
      "kv/covers-context",
    ]),
  );
  const nowhere = found.filter((f) => f.file !== null && !(f.file in files)).map((f) => `${f.rule} ${f.service ?? ""} → ${f.file ?? ""}`);
  expect(nowhere).toEqual([]);
  // And every finding about a seat points into the compose file.
  expect(found.filter((f) => f.service !== null && f.file !== CF).map((f) => `${f.rule} ${f.file ?? "null"}`)).toEqual([]);
});
