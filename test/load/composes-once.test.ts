// The compose input reads a project once for two snapshots that hold the same texts (a view loads
// HEAD and the working tree; a staged check HEAD and the index): the second load gives the first's
// reads, and any changed file it asked for (the compose file, its .env) makes it read again.
import { expect, test } from "vitest";
import { composes } from "../../src/load/composes.js";
import { pack, policyOf, state } from "../radiance/fixtures.js";
import type { DecodedFile } from "../../src/load/decode.js";
import type { Snapshot } from "../../src/git/types.js";
import type { FleetState } from "../../src/model/types.js";

const snapshot: Snapshot = { label: "s", list: async () => [], read: async () => new Map() };
const CF = "deploy/compose.yaml";
const compose = [
  "services:",
  "  coder:",
  "    image: vllm/vllm-openai:v0.10.2",
  '    command: [Qwen/Qwen3-8B, --max-model-len, "${LEN:-8192}"]',
  "    deploy:",
  "      resources:",
  "        reservations:",
  "          devices: [{ capabilities: [gpu], device_ids: ['0'] }]",
  "",
].join("\n");

function load(files: Record<string, string>): FleetState {
  const fleet = state([]);
  const decoded = new Map<string, DecodedFile>(Object.entries(files).map(([p, t]) => [p, { text: t, problem: null }]));
  composes.add(fleet, decoded, { snapshot, listing: [...decoded.keys()], policy: policyOf(), pack });
  return fleet;
}

/** The --max-model-len of the command the seat runs. */
function maxLen(f: FleetState): string | undefined {
  const command = f.composes?.[0]?.deploys[0]?.edits.find((e) => e.kind === "flags" && e.key === "COMMAND");
  return command?.kind === "flags" ? /--max-model-len (\d+)/.exec(command.value)?.[1] : undefined;
}

test("the same texts (other string objects) give the same reads, not a second read", () => {
  const a = load({ [CF]: compose, "deploy/.env": "LEN=4096\n" });
  const b = load({ [CF]: compose.slice(0, -1) + "\n", "deploy/.env": "LEN=4096\n" });
  expect(maxLen(a)).toBe("4096");
  expect(b.composes?.[0]?.deploys[0]).toBe(a.composes?.[0]?.deploys[0]);
});

test.each([
  ["a changed .env beside it", { [CF]: compose, "deploy/.env": "LEN=2048\n" }, "2048"],
  ["the .env gone", { [CF]: compose }, "8192"],
  ["a changed compose file", { [CF]: compose.replace("8192", "1024") }, "1024"],
])("%s is read again", (_name, files, len) => {
  const a = load({ [CF]: compose, "deploy/.env": "LEN=4096\n" });
  const b = load(files);
  expect(maxLen(a)).toBe("4096");
  expect(b.composes?.[0]?.deploys[0]).not.toBe(a.composes?.[0]?.deploys[0]);
  expect(maxLen(b)).toBe(len);
});
