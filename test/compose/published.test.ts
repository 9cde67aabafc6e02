// Published vLLM compose files (test/fixtures/compose-published/SOURCES.md names each one's source),
// read unchanged by the real loader on a host of four cards. Each resolves to the seats and cards
// docker would start, worked from Docker's rules: device_ids are the cards named; `count: N` is cards
// 0..N-1 (moby countToDevices); `count: all` is every card, of which vLLM takes cuda:0 (TP 1) or the
// first TP; CUDA_VISIBLE_DEVICES picks among the cards given. And docker compose loads each one, so
// none is refused.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";
import { contextOf, runCase } from "../helpers/rule-tester.js";

const DIR = join(dirname(fileURLToPath(import.meta.url)), "..", "fixtures", "compose-published");
const KVGATE = [
  "version: 1",
  "fleet:",
  "  hosts:",
  "    gpu1:",
  "      gpus:",
  ...[0, 1, 2, 3].map((i) => `        - { index: ${i}, total: 80GiB, reserve: 1GiB }`),
  "",
].join("\n");

function filesOf(dir: string): Record<string, string> {
  const out: Record<string, string> = { "kvgate.yaml": KVGATE };
  const walk = (d: string): void => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else out[relative(dir, p)] = readFileSync(p, "utf8");
    }
  };
  walk(dir);
  return out;
}

describe.each([
  // vllm: device_ids ['0','1'] and --tensor-parallel-size=2; h2ogpt (no engine kvgate sizes) holds 2 and 3.
  ["h2ogpt", { vllm: [0, 1], h2ogpt: [2, 3] }],
  // Both ask for every card (count: all) and run TP 1: both on cuda:0, the host's card 0.
  ["vllm-serve-multi", { gemma4: [0], ornith: [0] }],
  // count: 1 is card 0; the orchestrator (pulled in by extends) and the runner are not seats.
  ["livepeer-example-apps", { vllm: [0] }],
  // A built image, count: 1: card 0.
  ["dash0-examples", { vllm: [0] }],
  // count: 1 gives card 0, and CUDA_VISIBLE_DEVICES=0 picks it inside.
  ["gpt-oss", { vllm: [0] }],
])("%s", (name, seats) => {
  const files = filesOf(join(DIR, name));

  test("the seats and cards docker starts", async () => {
    const ctx = await contextOf({ name, files });
    expect(Object.fromEntries(ctx.after.services.map((s) => [s.name, s.gpus]))).toEqual(seats);
  });

  test("docker compose loads it: no compose/parse", async () => {
    const found = await runCase({ name, files });
    expect(found.filter((f) => f.rule === "compose/parse").map((f) => f.message)).toEqual([]);
  });
});

test("what the seats run, from the files' own defaults", async () => {
  const live = await contextOf({ name: "livepeer", files: filesOf(join(DIR, "livepeer-example-apps")) });
  const vllm = live.after.services.find((s) => s.name === "vllm");
  // ${VLLM_MODEL:-Qwen/Qwen2.5-0.5B-Instruct} and ${VLLM_GPU_MEM_UTIL:-0.5}: the defaults, no .env.
  expect([vllm?.model, vllm?.settings.gpu_memory_utilization?.value]).toEqual(["Qwen/Qwen2.5-0.5B-Instruct", 0.5]);
  const oss = await contextOf({ name: "gpt-oss", files: filesOf(join(DIR, "gpt-oss")) });
  const s = oss.after.services.find((x) => x.name === "vllm");
  expect([s?.model, s?.settings.max_model_len?.value, s?.tp]).toEqual(["facebook/opt-125m", 4096, 1]);
});
