// vLLM's own KV evidence, worked by hand: the peak KV use, the requests running and waiting, and the
// preemption windows from vllm:num_preemptions_total (a counter; a drop is a restart), per seat.
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { join } from "node:path";
import { utimesSync } from "node:fs";
import { makeFolder, type TempFolder } from "../helpers/folder.js";
import { sniffMetrics } from "../../src/observe/read.js";
import { collectMetrics } from "../../src/observe/collect.js";
import { mergeWindows } from "../../src/observe/engine.js";
import { seatObservations } from "../../src/observe/seats.js";
import { GiB } from "../../src/units/bytes.js";
import { vllmRange, vllmScrape } from "./formats.js";

const T = Date.UTC(2026, 9, 5, 14, 0, 0);
const MIN = 60_000;
const at = (m: number): number => T + m * MIN;
const iso = (m: number): string => new Date(at(m)).toISOString();

let dir: TempFolder;
beforeEach(async () => {
  dir = await makeFolder();
});
afterEach(async () => {
  await dir.cleanup();
});

async function engines(...names: string[]) {
  const files = [];
  for (const n of names) files.push(await sniffMetrics(join(dir.dir, n)));
  return collectMetrics({ files, host: null, defaultHost: null, fleetTotal: () => null, since: null, until: null, chartColumns: null });
}

const look = { serviceOf: (m: string) => (m === "gen-small" ? "gen-small" : null), kvOf: () => 5.5 * GiB };

describe("a range query of one seat", () => {
  // preemptions_total by minute: 4 (before the window), 4, 7, 9, 9, 2 (a restart: 2 since), 2, 2, 5.
  // Intervals with preemptions: (1,2] 3, (2,3] 2 → one window 1→3 of 5; (4,5] 2 after the restart → 4→5;
  // (7,8] 3 → 7→8. 10 in the window; the 4 before the first sample are named, not counted.
  const preemptions: [number, number][] = [4, 4, 7, 9, 9, 2, 2, 2, 5].map((v, m) => [at(m), v]);
  const kv: [number, number][] = [0.41, 0.77, 1, 1, 0.93, 0.12, 0.5, 0.98, 1].map((v, m) => [at(m), v]);
  const running: [number, number][] = [3, 9, 14, 14, 12, 1, 4, 13, 14].map((v, m) => [at(m), v]);
  const waiting: [number, number][] = [0, 2, 11, 17, 6, 0, 0, 3, 9].map((v, m) => [at(m), v]);

  test("windows, counts, peaks", async () => {
    dir.write("vllm.json", vllmRange("gen-small", { preemptions, kv, running, waiting }));
    const got = await engines("vllm.json");
    expect(got.cards).toEqual([]);
    const [s] = seatObservations(got.engines, look);
    expect(s).toEqual({
      name: "gen-small",
      service: "gen-small",
      models: ["gen-small"],
      series: 1,
      samples: 36,
      from: iso(0),
      until: iso(8),
      peak_kv_usage: 1,
      peak_kv_at: iso(2),
      kv_bytes: 5.5 * GiB,
      peak_kv_bytes: 5.5 * GiB,
      peak_running: 14,
      peak_waiting: 17,
      preemptions: 10,
      preemptions_before: 4,
      preemption_windows: [
        { from: iso(1), until: iso(3), preemptions: 5 },
        { from: iso(4), until: iso(5), preemptions: 2 },
        { from: iso(7), until: iso(8), preemptions: 3 },
      ],
      notes: ["4 preemptions before the first sample (the counter counts from the engine's start)"],
    });
  });

  test("a model_name no service serves: shown under its name, with what to do", async () => {
    dir.write("other.json", vllmRange("Qwen/Qwen3-32B", { kv: [[at(0), 0.2]] }));
    const [s] = seatObservations((await engines("other.json")).engines, look);
    expect(s).toMatchObject({ name: "Qwen/Qwen3-32B", service: null, kv_bytes: null, peak_kv_bytes: null, preemptions: 0 });
    expect(s?.notes[0]).toMatch(
      /no service of the fleet serves model_name "Qwen\/Qwen3-32B": name the service so, set --served-model-name/,
    );
  });

  test("a kv_cache_usage_perc outside 0..1 is an impossible reading, skipped with why", async () => {
    dir.write("bad.json", vllmRange("gen-small", { kv: [[at(0), 1.7]] }));
    const got = await engines("bad.json");
    expect(got.problems.map((p) => p.reason)).toEqual(["vllm:kv_cache_usage_perc: not a fraction from 0 to 1: 1.7"]);
  });
});

describe("one /metrics scrape", () => {
  test("the counter since the engine started (process_start_time_seconds) until the scrape, taken at the file's time", async () => {
    dir.write("scrape.prom", vllmScrape("gen-small", { kv: 0.97, running: 14, waiting: 6, preemptions: 7, startSeconds: at(-600) / 1000 }));
    utimesSync(join(dir.dir, "scrape.prom"), at(0) / 1000, at(0) / 1000);
    const got = await engines("scrape.prom");
    expect(got.notes.join("\n")).toMatch(
      /a scrape without timestamps: read as taken at the file's modification time, 2026-10-05 14:00 UTC/,
    );
    const [s] = seatObservations(got.engines, look);
    expect(s).toMatchObject({
      peak_kv_usage: 0.97,
      peak_running: 14,
      peak_waiting: 6,
      preemptions: 7,
      preemptions_before: 0,
      preemption_windows: [{ from: iso(-600), until: iso(0), preemptions: 7 }],
    });
  });
});

test("windows of two engines of one seat: overlapping ones merge, their counts add", () => {
  expect(
    mergeWindows([
      { from: 10, until: 20, preemptions: 2 },
      { from: 15, until: 30, preemptions: 3 },
      { from: 40, until: 50, preemptions: 1 },
      { from: null, until: 5, preemptions: 4 },
    ]),
  ).toEqual([
    { from: null, until: 5, preemptions: 4 },
    { from: 10, until: 30, preemptions: 5 },
    { from: 40, until: 50, preemptions: 1 },
  ]);
});
