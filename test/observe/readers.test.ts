// The monitoring formats, written as their tools write them (./formats.ts), through the real streaming
// path (sniff → read → per-card tracks); and observed.yaml.
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { join } from "node:path";
import { makeFolder, type TempFolder } from "../helpers/folder.js";
import { sniffMetrics, readMetrics } from "../../src/observe/read.js";
import { collectMetrics, type CollectOptions } from "../../src/observe/collect.js";
import { parsePromLine } from "../../src/observe/prom-text.js";
import { observeCard, plateauBoot } from "../../src/observe/cards.js";
import { readObservedFile, writeObservedFile } from "../../src/observe/observed-file.js";
import type { GpuReading, MetricsSink } from "../../src/observe/sample.js";
import { GateError } from "../../src/errors.js";
import { MiB } from "../../src/units/bytes.js";
import { beszelRecord, beszelSqliteCsv, dcgmFederate, dcgmRange, dcgmScrape, smiCsv, smiStamp, SMI_HEADER } from "./formats.js";

const T = Date.UTC(2026, 9, 5, 22, 26, 0);
const MIN = 60_000;

let dir: TempFolder;
beforeEach(async () => {
  dir = await makeFolder();
});
afterEach(async () => {
  await dir.cleanup();
});

/** What a file's reader hands on: the readings (copied), problems and notes. */
async function readAll(name: string, text: string) {
  dir.write(name, text);
  const got = { gpu: [] as GpuReading[], problems: [] as [number | null, string][], notes: [] as string[] };
  const sink: MetricsSink = {
    gpu: (r) => got.gpu.push({ ...r }),
    engine: () => {},
    problem: (line, reason) => got.problems.push([line, reason]),
    note: (n) => got.notes.push(n),
  };
  const s = await sniffMetrics(join(dir.dir, name));
  await readMetrics(s, sink);
  return { ...got, format: s.format, hostless: s.hostless };
}

const opts = (files: CollectOptions["files"], o: Partial<CollectOptions> = {}): CollectOptions => ({
  files,
  host: null,
  defaultHost: null,
  fleetTotal: () => null,
  since: null,
  until: null,
  chartColumns: null,
  ...o,
});

async function collect(names: string[], o: Partial<CollectOptions> = {}) {
  const files = [];
  for (const n of names) files.push(await sniffMetrics(join(dir.dir, n)));
  return collectMetrics(opts(files, o));
}

async function error(p: Promise<unknown>): Promise<GateError> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(GateError);
    return e as GateError;
  }
  throw new Error("expected a GateError");
}

describe("nvidia-smi CSV", () => {
  test("with its header and units; [N/A], short lines and a logger restart's repeated header", async () => {
    const text = [
      SMI_HEADER,
      `${smiStamp(T)}, 0, 93851 MiB, 97887 MiB`,
      `${smiStamp(T)}, 1, [N/A], 97887 MiB`,
      `${smiStamp(T + MIN)}, 0, 93900 MiB`,
      SMI_HEADER,
      `${smiStamp(T + 2 * MIN)}, 0, 93950 MiB, 97887 MiB`,
      "",
    ].join("\n");
    const r = await readAll("smi.csv", text);
    expect(r.format).toBe("nvidia-smi");
    expect(r.hostless).toBe(true);
    expect(r.gpu).toEqual([
      { host: null, index: 0, t: T, used: 93_851 * MiB, free: null, total: 97_887 * MiB },
      { host: null, index: 0, t: T + 2 * MIN, used: 93_950 * MiB, free: null, total: 97_887 * MiB },
    ]);
    expect(r.problems).toEqual([
      [3, 'memory.used is not MiB: "[N/A]"'],
      [4, "expected 4 columns (timestamp, index, memory.used, memory.total), found 3"],
    ]);
  });
  test("noheader,nounits: the default column order, bare MiB", async () => {
    const r = await readAll("x.csv", `${smiStamp(T)}, 1, 1024, 2048\n`);
    expect(r.gpu).toEqual([{ host: null, index: 1, t: T, used: 1024 * MiB, free: null, total: 2048 * MiB }]);
  });
  test("other columns and orders by the header; memory.free when queried", async () => {
    const r = await readAll("x.csv", `index, memory.free [MiB], memory.used [MiB], timestamp\n3, 100 MiB, 900 MiB, ${smiStamp(T)}\n`);
    expect(r.gpu).toEqual([{ host: null, index: 3, t: T, used: 900 * MiB, free: 100 * MiB, total: null }]);
  });
  test("a header without memory.used is refused, saying the query to run", async () => {
    const e = await error(readAll("x.csv", "timestamp, index, utilization.gpu [%], memory.total [MiB]\n"));
    expect(e.message).toMatch(
      /x\.csv:1: the nvidia-smi header lacks memory\.used: query --query-gpu=timestamp,index,memory\.used,memory\.total/,
    );
  });
});

describe("Prometheus text: the DCGM exporter's /metrics and Prometheus's /federate", () => {
  test("the line grammar: labels with escapes, NaN and Inf, millisecond and OpenMetrics second timestamps", () => {
    expect(parsePromLine('DCGM_FI_DEV_FB_USED{gpu="0",Hostname="a \\"b\\"\\\\c\\nd"} 1234 1759703160000')).toEqual({
      name: "DCGM_FI_DEV_FB_USED",
      labels: { gpu: "0", Hostname: 'a "b"\\c\nd' },
      value: 1234,
      t: 1759703160000,
    });
    expect(parsePromLine("vllm:num_preemptions_total 12.0 1759703160.5")).toMatchObject({ value: 12, t: 1759703160500 });
    expect(parsePromLine("x NaN")).toMatchObject({ t: null });
    expect(parsePromLine("# HELP x y")).toBeNull();
    expect(parsePromLine('x{gpu="0} 1')).toBe("x: the value of the label gpu is never closed");
    expect(parsePromLine("x lots")).toBe('x: not a number: "lots"');
  });

  test("a single /metrics scrape is one instant, not a series: refused, saying to query a range (issue 30 item 5)", async () => {
    const e = await error(readAll("dcgm.prom", dcgmScrape("fv-ml1", [{ used: 93_851, free: 4_036 }])));
    expect(e.message).toMatch(
      /dcgm\.prom is Prometheus text from one \/metrics scrape: 2 DCGM samples without a time, one instant, not a series/,
    );
    expect(e.hint).toMatch(/api\/v1\/query_range .*DCGM_FI_DEV_FB_\(USED\|FREE\)/);
    expect(e.message).not.toMatch(/columns/);
  });

  test("/federate with timestamps: FB_USED and FB_FREE of one instant make one reading, total = used + free", async () => {
    const text = dcgmFederate("fv-ml1", [
      {
        t: T,
        cards: [
          { used: 93_851, free: 4_036 },
          { used: 80_000, free: 17_887 },
        ],
      },
      {
        t: T + MIN,
        cards: [
          { used: 93_900, free: 3_987 },
          { used: 80_100, free: 17_787 },
        ],
      },
    ]);
    const r = await readAll("fed.prom", text);
    expect(r.format).toBe("prometheus-text");
    expect(r.gpu.find((g) => g.index === 0 && g.t === T)).toEqual({
      host: "fv-ml1",
      index: 0,
      t: T,
      used: 93_851 * MiB,
      free: 4_036 * MiB,
      total: 97_887 * MiB,
    });
    expect(r.gpu).toHaveLength(4);
  });
});

describe("Prometheus range query of the DCGM exporter", () => {
  test("FB_USED and FB_FREE together: total is their sum; other series are named in a note", async () => {
    const doc = JSON.parse(
      dcgmRange([
        { name: "DCGM_FI_DEV_FB_USED", gpu: 0, host: "fv-ml1", values: [[T, 93_851]] },
        { name: "DCGM_FI_DEV_FB_FREE", gpu: 0, host: "fv-ml1", values: [[T, 4_036]] },
      ]),
    );
    doc.data.result.push({ metric: { __name__: "DCGM_FI_DEV_GPU_UTIL", gpu: "0" }, values: [] });
    const r = await readAll("p.json", JSON.stringify(doc));
    expect(r.gpu).toEqual([{ host: "fv-ml1", index: 0, t: T, used: 93_851 * MiB, free: 4_036 * MiB, total: 97_887 * MiB }]);
    expect(r.notes).toEqual([`${join(dir.dir, "p.json")}: 1 series that are not DCGM framebuffer or vLLM engine metrics were left out`]);
  });
  test("an instant query (vector) is refused, naming the endpoint to use", async () => {
    const e = await error(readAll("p.json", JSON.stringify({ status: "success", data: { resultType: "vector", result: [] } })));
    expect(e.message).toMatch(/not a Prometheus range-query result .*query_range/);
  });

  test("FB_USED alone: free from the fleet's CUDA total, not the marketing total (issue 30 item 5: 417 MiB on a 96 GiB card)", async () => {
    dir.write("used.json", dcgmRange([{ name: "DCGM_FI_DEV_FB_USED", gpu: 0, host: "fv-ml1", values: [[T, 96_000]] }]));
    // kvgate.yaml's card: total 96 GiB (98,304 MiB), cuda_total 97,887 MiB; the command passes cuda_total.
    const c = await collect(["used.json"], { fleetTotal: () => 97_887 * MiB });
    expect(c.cards[0]).toMatchObject({ totalBytes: 97_887 * MiB, totalSource: "fleet" });
    expect(c.cards[0]?.boots[0]?.plateau_free_bytes).toBe(1_887 * MiB);
  });
});

describe("Beszel system_stats records", () => {
  test("MiB = mu × 1.024 (contract section 16), for used and total; the system's name from ?expand=system", async () => {
    const r = await readAll(
      "b.json",
      JSON.stringify({
        page: 1,
        perPage: 500,
        totalItems: 1,
        items: [beszelRecord(1, T, [{ mu: 91_650.39, mt: 95_592.77 }], { name: "fv-ml1" })],
      }),
    );
    expect(r.format).toBe("beszel");
    expect(r.gpu).toEqual([
      { host: "fv-ml1", index: 0, t: T, used: Math.round(91_650.39 * 1.024 * MiB), free: null, total: Math.round(95_592.77 * 1.024 * MiB) },
    ]);
  });

  test("no mu is 0 MiB used (omitempty,omitzero): the restart it shows is a boot (issue 30 item 4: 2 boots, not 1)", async () => {
    const mt = 95_592.77;
    const at = (m: number) => T + m * MIN;
    const recs = [
      beszelRecord(1, at(0), [{ mu: 88_000, mt }], { name: "fv-ml1" }),
      beszelRecord(2, at(20), [{ mu: 89_000, mt }], { name: "fv-ml1" }),
      beszelRecord(3, at(40), [{ mt }], { name: "fv-ml1" }), // the engines stopped: no mu at all
      beszelRecord(4, at(60), [{ mu: 86_000, mt }], { name: "fv-ml1" }),
      beszelRecord(5, at(80), [{ mu: 86_500, mt }], { name: "fv-ml1" }),
    ];
    dir.write("restart.json", JSON.stringify(recs));
    const c = await collect(["restart.json"]);
    expect(c.cards[0]?.boots.map((b) => [b.start, b.samples])).toEqual([
      [at(0), 2],
      [at(40), 3],
    ]);
  });

  test("SQLite's -json export holds stats as JSON text: read, not 'no GPU memory readings' (issue 30 item 4)", async () => {
    const r = await readAll("sqlite.json", JSON.stringify([beszelRecord(1, T, [{ mu: 1000, mt: 95_592.77 }], { asText: true })]));
    expect(r.gpu).toEqual([
      { host: null, index: 0, t: T, used: Math.round(1000 * 1.024 * MiB), free: null, total: Math.round(95_592.77 * 1.024 * MiB) },
    ]);
  });

  test("SQLite's -header -csv export: read as Beszel, host-less (--host needed)", async () => {
    const r = await readAll("sqlite.csv", beszelSqliteCsv([beszelRecord(1, T, [{ mu: 1000, mt: 95_592.77 }], { asText: true })]));
    expect(r.format).toBe("beszel");
    expect(r.hostless).toBe(true);
    expect(r.gpu).toHaveLength(1);
  });

  test("records without GPU data: a note says why there are no readings", async () => {
    const rec = beszelRecord(1, T, []);
    delete (rec.stats as { g?: unknown }).g;
    const r = await readAll("nogpu.json", JSON.stringify([rec]));
    expect(r.gpu).toEqual([]);
    expect(r.notes.join("\n")).toMatch(/1 1m record has no stats\.g: the agent reported no GPU then/);
  });

  test("several record types: the finest is used, and a note says so", async () => {
    const r = await readAll(
      "types.json",
      JSON.stringify([
        beszelRecord(1, T, [{ mu: 100 }], { type: "10m", name: "h" }),
        beszelRecord(2, T, [{ mu: 200 }], { type: "1m", name: "h" }),
        beszelRecord(3, T - 120 * MIN, [{ mu: 300 }], { type: "120m", name: "h" }),
      ]),
    );
    expect(r.gpu.map((s) => s.used)).toEqual([Math.round(200 * 1.024 * MiB)]);
    expect(r.notes).toEqual([`${join(dir.dir, "types.json")}: records of types 1m, 10m, 120m: using the finest, 1m`]);
  });

  test("several unnamed systems are refused", async () => {
    const two = [beszelRecord(1, T, [{ mu: 1 }]), { ...beszelRecord(2, T + MIN, [{ mu: 1 }]), system: "other0000000000" }];
    const e = await error(readAll("two.json", JSON.stringify(two)));
    expect(e.message).toMatch(/records of 2 Beszel systems without their names/);
  });
});

describe("per card: readings in order, checked, boots", () => {
  test("impossible readings (used > total, free < 0) are skipped with their file and line (issue 26)", async () => {
    dir.write(
      "bad.csv",
      [
        SMI_HEADER,
        `${smiStamp(T)}, 0, 90000 MiB, 97887 MiB`,
        `${smiStamp(T + MIN)}, 0, 99000 MiB, 97887 MiB`,
        `${smiStamp(T + 2 * MIN)}, 0, 90100 MiB, 97887 MiB`,
      ].join("\n") + "\n",
    );
    dir.write("neg.json", dcgmRange([{ name: "DCGM_FI_DEV_FB_FREE", gpu: 0, host: "h", values: [[T, -5]] }]));
    const c = await collect(["bad.csv"], { defaultHost: "h" });
    expect(c.problems).toEqual([
      { file: join(dir.dir, "bad.csv"), line: 3, reason: "impossible reading: used 99000 MiB is above its total, 97887 MiB" },
    ]);
    expect(c.cards[0]?.samples).toBe(2);
    const n = await collect(["neg.json"], { fleetTotal: () => 1000 * MiB });
    expect(n.problems.map((p) => p.reason)).toEqual(['DCGM_FI_DEV_FB_FREE{gpu="0"}: not MiB ≥ 0: -5']);
  });

  test("out of time order (files given newest first): the card is sorted in a second pass; the later of two equal readings wins", async () => {
    dir.write("old.csv", smiCsv(T, [[10_000], [90_000], [91_000]]));
    dir.write("new.csv", smiCsv(T + 2 * MIN, [[95_000], [1_000], [80_000]]));
    const inOrder = await collect(["old.csv", "new.csv"], { defaultHost: "h" });
    const reversed = await collect(["new.csv", "old.csv"], { defaultHost: "h" });
    // T+2: 91,000 in old.csv, 95,000 in new.csv: the file read later wins.
    expect(inOrder.cards[0]?.boots.map((b) => [b.start, b.samples, b.plateau_free_bytes])).toEqual([
      [T, 3, (97_887 - 95_000) * MiB],
      [T + 3 * MIN, 2, (97_887 - 80_000) * MiB],
    ]);
    expect(reversed.cards[0]?.boots).toHaveLength(2);
    expect(reversed.cards[0]?.boots[0]?.plateau_free_bytes).toBe((97_887 - 91_000) * MiB);
  });

  test("no total anywhere: refused, naming the card and what to add", async () => {
    dir.write("free.json", dcgmRange([{ name: "DCGM_FI_DEV_FB_FREE", gpu: 1, host: "h", values: [[T, 30]] }]));
    const e = await error(collect(["free.json"]));
    expect(e.message).toMatch(/h GPU 1: no total memory/);
  });

  test("--host reads every card of a file as that host; a file naming two hosts is then refused", async () => {
    dir.write("docker.json", dcgmRange([{ name: "DCGM_FI_DEV_FB_USED", gpu: 0, host: "3f4e9a1c2b7d", values: [[T, 1000]] }]));
    const c = await collect(["docker.json"], { host: "fv-ml1", fleetTotal: () => 97_887 * MiB });
    expect(c.cards.map((x) => x.host)).toEqual(["fv-ml1"]);
    expect(c.notes).toEqual([`${join(dir.dir, "docker.json")}: its cards are labelled host 3f4e9a1c2b7d: read as fv-ml1 (--host)`]);
    dir.write(
      "two.json",
      dcgmRange([
        { name: "DCGM_FI_DEV_FB_USED", gpu: 0, host: "a", values: [[T, 1000]] },
        { name: "DCGM_FI_DEV_FB_USED", gpu: 0, host: "b", values: [[T, 1000]] },
      ]),
    );
    const e = await error(collect(["two.json"], { host: "fv-ml1", fleetTotal: () => 97_887 * MiB }));
    expect(e.message).toMatch(/names the cards of several hosts \(a, b\): --host fv-ml1 would read them as one/);
  });

  test("the format is picked by content", async () => {
    dir.write("a.csv", `${smiStamp(T)}, 0, 1, 2\n`);
    dir.write("b.json", JSON.stringify({ status: "success", data: { resultType: "matrix", result: [] } }));
    dir.write("c.json", JSON.stringify({ page: 1, items: [] }));
    dir.write("d.jsonl", `${JSON.stringify(beszelRecord(1, T, [{ mu: 1 }]))}\n${JSON.stringify(beszelRecord(2, T + MIN, []))}\n`);
    dir.write("e.prom", dcgmScrape("h", [{ used: 1, free: 2 }]));
    dir.write("f.csv", beszelSqliteCsv([beszelRecord(1, T, [{ mu: 1 }], { asText: true })]));
    const kinds = [];
    for (const f of ["a.csv", "b.json", "c.json", "d.jsonl", "e.prom", "f.csv"]) kinds.push((await sniffMetrics(join(dir.dir, f))).format);
    expect(kinds).toEqual(["nvidia-smi", "prometheus", "beszel", "beszel", "prometheus-text", "beszel"]);
  });

  test("unreadable, empty, or JSON of another kind: refused (exit 2)", async () => {
    dir.write("empty.csv", "\n");
    dir.write("other.json", '{"hello": 1}');
    expect((await error(sniffMetrics(join(dir.dir, "nope.csv")))).message).toMatch(/cannot read .*nope\.csv: no such file/);
    expect((await error(sniffMetrics(join(dir.dir, "empty.csv")))).message).toMatch(/empty\.csv is empty/);
    expect((await error(collect(["other.json"]))).message).toMatch(
      /JSON that is neither a Prometheus range-query result nor Beszel records/,
    );
  });
});

describe("observed.yaml", () => {
  test("what --write writes, the reader reads back; the boot figures of the plateau's boot", async () => {
    dir.write(
      "m.csv",
      smiCsv(
        T,
        [[50], [90], [95]].map((x) => x.map((u) => u)),
        100,
      ),
    );
    const c = await collect(["m.csv"], { defaultHost: "fv-ml1" });
    const card = observeCard(c.cards[0] as NonNullable<(typeof c.cards)[0]>, undefined);
    expect(plateauBoot(card)).toMatchObject({ boot_free_bytes: null, plateau_free_bytes: 5 * MiB });
    const text = writeObservedFile([card], ["metrics/fv-ml1.csv"]);
    const r = readObservedFile(text, "observed.yaml");
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value.cards).toEqual([
      {
        host: "fv-ml1",
        index: 0,
        plateau_free_bytes: 5 * MiB,
        plateau_at: new Date(T + 2 * MIN).toISOString(),
        boot_free_bytes: null,
        creep_bytes: null,
        total_bytes: 100 * MiB,
        reserve_bytes: null,
        predicted_used_bytes: null,
        boots: 1,
        samples: 3,
        last_boot_hours: 0,
      },
    ]);
    expect(r.value.sources).toEqual(["metrics/fv-ml1.csv"]);
    expect(text).toMatch(/^# GPU memory at plateau per card/);
  });

  test.each([
    [
      "version: 2\nfrom: 2026-10-05T00:00:00Z\nuntil: 2026-10-06T00:00:00Z\ncards: []\n",
      /version: Invalid input: expected 1 \(observed\.yaml:1\)/,
    ],
    [
      "version: 1\nfrom: 2026-10-05T00:00:00Z\nuntil: 2026-10-06T00:00:00Z\ncards:\n  - host: fv-ml1\n    index: 0\n",
      /cards\.0\.plateau_free_bytes: .*\(observed\.yaml:5\)/,
    ],
    ["version: 1\nfrom: soon\nuntil: 2026-10-06T00:00:00Z\ncards: []\n", /from: expected an ISO 8601 time \(observed\.yaml:2\)/],
    [
      "version: 1\nfrom: 2026-10-05T00:00:00Z\nuntil: 2026-10-06T00:00:00Z\ncards:\n  - { host: a, index: 0, plateau_free_bytes: 1 }\n  - { host: a, index: 0, plateau_free_bytes: 2 }\n",
      /cards\.1: a GPU 0 is listed twice \(observed\.yaml:6\)/,
    ],
    [
      "version: 1\nfrom: 2026-10-05T00:00:00Z\nuntil: 2026-10-06T00:00:00Z\ncards: []\nseats:\n  - { service: a, preemptions: -1 }\n",
      /seats\.0\.preemptions: .*\(observed\.yaml:6\)/,
    ],
    ["version: 1\ncards: [\n", /observed\.yaml:\d+: /],
  ])("malformed: problems with their line, never a throw (%#)", (text, message) => {
    const r = readObservedFile(text, "observed.yaml");
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.problems.map((p) => p.message).join("\n")).toMatch(message);
    expect(r.problems.every((p) => p.line === null || p.line > 0)).toBe(true);
  });
});
