// The three GPU memory sources, the series built from them, and observed.yaml.
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { join } from "node:path";
import { makeFolder, type TempFolder } from "../helpers/repo.js";
import { readNvidiaSmi } from "../../src/observe/nvidia-smi.js";
import { readPrometheus } from "../../src/observe/prometheus.js";
import { readBeszel } from "../../src/observe/beszel.js";
import { readMetricsFile } from "../../src/observe/read.js";
import { cardSeries } from "../../src/observe/series.js";
import { observeCard } from "../../src/observe/cards.js";
import { readObservedFile, writeObservedFile } from "../../src/observe/observed-file.js";
import { GateError } from "../../src/errors.js";
import { MiB } from "../../src/units/bytes.js";

const T = Date.UTC(2026, 9, 5, 22, 26, 0);

describe("nvidia-smi CSV", () => {
  test("with its header and units; [N/A] and short lines are skipped with their line", () => {
    const text = [
      "timestamp, index, memory.used [MiB], memory.total [MiB]",
      "2026/10/05 22:26:00.000, 0, 93851 MiB, 97887 MiB",
      "2026/10/05 22:26:00.000, 1, [N/A], 97887 MiB",
      "2026/10/05 22:27:00.000, 0, 93900 MiB",
      "",
    ].join("\n");
    const r = readNvidiaSmi(text, "smi.csv");
    expect(r.samples).toEqual([{ host: null, index: 0, t: T, used: 93_851 * MiB, free: null, total: 97_887 * MiB }]);
    expect(r.problems).toEqual([
      { file: "smi.csv", line: 3, reason: 'memory.used is not MiB: "[N/A]"' },
      { file: "smi.csv", line: 4, reason: "expected 4 columns, found 3" },
    ]);
  });
  test("noheader,nounits: the default column order, bare MiB", () => {
    const r = readNvidiaSmi("2026/10/05 22:26:00.000, 1, 1024, 2048\n", "x");
    expect(r.samples).toEqual([{ host: null, index: 1, t: T, used: 1024 * MiB, free: null, total: 2048 * MiB }]);
  });
  test("other columns and orders by the header; memory.free when queried", () => {
    const r = readNvidiaSmi("index, memory.free [MiB], memory.used [MiB], timestamp\n3, 100 MiB, 900 MiB, 2026/10/05 22:26:00.000\n", "x");
    expect(r.samples).toEqual([{ host: null, index: 3, t: T, used: 900 * MiB, free: 100 * MiB, total: null }]);
  });
  test("a header without memory.used is refused, saying the query to run", () => {
    expect(() => readNvidiaSmi("timestamp, index, utilization.gpu [%]\n", "x.csv")).toThrow(
      /x\.csv:1: the nvidia-smi header lacks memory\.used: query --query-gpu=timestamp,index,memory\.used,memory\.total/,
    );
  });
});

describe("Prometheus range query of the DCGM exporter", () => {
  const series = (name: string, gpu: string, values: [number, string][]) => ({
    metric: { __name__: name, gpu, Hostname: "fv-ml1" },
    values,
  });
  test("FB_USED and FB_FREE together: total is their sum", () => {
    const doc = {
      status: "success",
      data: {
        resultType: "matrix",
        result: [
          series("DCGM_FI_DEV_FB_USED", "0", [[T / 1000, "93851"]]),
          series("DCGM_FI_DEV_FB_FREE", "0", [[T / 1000, "4036"]]),
          { metric: { __name__: "DCGM_FI_DEV_GPU_UTIL", gpu: "0" }, values: [] },
        ],
      },
    };
    const r = readPrometheus(doc, "p.json");
    expect(r.samples).toEqual([{ host: "fv-ml1", index: 0, t: T, used: 93_851 * MiB, free: 4036 * MiB, total: 97_887 * MiB }]);
    expect(r.notes).toEqual(["p.json: 1 series that are not DCGM_FI_DEV_FB_USED/DCGM_FI_DEV_FB_FREE with a gpu label were left out"]);
  });
  test("FB_FREE alone: used comes from the fleet's total later; a bad value is a problem", () => {
    const r = readPrometheus(
      {
        data: {
          resultType: "matrix",
          result: [
            series("DCGM_FI_DEV_FB_FREE", "1", [
              [T / 1000, "4036"],
              [T / 1000 + 60, "NaN"],
            ]),
          ],
        },
      },
      "p.json",
    );
    expect(r.samples).toEqual([{ host: "fv-ml1", index: 1, t: T, used: -1, free: 4036 * MiB, total: null }]);
    expect(r.problems).toHaveLength(1);
  });
  test("an instant query (vector) is refused, naming the endpoint to use", () => {
    expect(() => readPrometheus({ data: { resultType: "vector", result: [] } }, "p.json")).toThrow(
      /not a Prometheus range-query result .*query_range/,
    );
  });
});

describe("Beszel system_stats records", () => {
  const rec = (created: string, mu: number, type = "1m", extra: object = {}) => ({
    rec: { created, type, system: "abc", stats: { g: { "0": { n: "GPU", mu, mt: 95_592.77 } } }, ...extra },
    line: null,
  });
  test("MiB = mu × 1.024 (contract section 16), for used and total", () => {
    const r = readBeszel([rec("2026-10-05 22:26:00.000Z", 91_650.39)], "b.json");
    expect(r.samples).toEqual([
      { host: null, index: 0, t: T, used: Math.round(91_650.39 * 1.024 * MiB), free: null, total: Math.round(95_592.77 * 1.024 * MiB) },
    ]);
  });
  test("several record types cover the same time: the finest is used, and a note says so", () => {
    const r = readBeszel(
      [
        rec("2026-10-05 22:26:00.000Z", 100, "10m"),
        rec("2026-10-05 22:26:00.000Z", 200, "1m"),
        rec("2026-10-05 20:00:00.000Z", 300, "120m"),
      ],
      "b.json",
    );
    expect(r.samples.map((s) => s.used)).toEqual([Math.round(200 * 1.024 * MiB)]);
    expect(r.notes).toEqual(["b.json: records of types 1m, 10m, 120m: using the finest, 1m"]);
  });
  test("the system's name comes from an expanded relation; several unnamed systems are refused", () => {
    const named = readBeszel([rec("2026-10-05 22:26:00.000Z", 1, "1m", { expand: { system: { name: "fv-ml1" } } })], "b.json");
    expect(named.samples[0]?.host).toBe("fv-ml1");
    const two = [rec("2026-10-05 22:26:00.000Z", 1), { rec: { ...rec("2026-10-05 22:27:00.000Z", 1).rec, system: "def" }, line: null }];
    expect(() => readBeszel(two, "b.json")).toThrow(/records of 2 Beszel systems without their names/);
  });
});

describe("files, series and hosts", () => {
  let dir: TempFolder;
  beforeEach(async () => {
    dir = await makeFolder();
  });
  afterEach(async () => {
    await dir.cleanup();
  });
  const opts = { defaultHost: null, fleetTotal: () => null, since: null, until: null };

  test("the format is picked by content: CSV, Prometheus JSON, Beszel list response, Beszel JSON lines", () => {
    dir.write("a.csv", "2026/10/05 22:26:00.000, 0, 1, 2\n");
    dir.write("b.json", JSON.stringify({ status: "success", data: { resultType: "matrix", result: [] } }));
    dir.write("c.json", JSON.stringify({ page: 1, items: [] }));
    dir.write(
      "d.jsonl",
      '{"created":"2026-10-05 22:26:00.000Z","stats":{"g":{"0":{"mu":1}}}}\n{"created":"2026-10-05 22:27:00.000Z","stats":{}}\n',
    );
    expect(["a.csv", "b.json", "c.json", "d.jsonl"].map((f) => readMetricsFile(join(dir.dir, f)).format)).toEqual([
      "nvidia-smi",
      "prometheus",
      "beszel",
      "beszel",
    ]);
  });

  test("unreadable, empty, or JSON of another kind: refused (exit 2)", () => {
    dir.write("empty.csv", "\n");
    dir.write("other.json", '{"hello": 1}');
    for (const [f, m] of [
      ["nope.csv", /cannot read .*nope\.csv: no such file/],
      ["empty.csv", /empty\.csv is empty/],
      ["other.json", /JSON that is neither a Prometheus result nor Beszel records/],
    ] as const) {
      const e = (() => {
        try {
          readMetricsFile(join(dir.dir, f));
        } catch (x) {
          return x;
        }
        return null;
      })();
      expect(e).toBeInstanceOf(GateError);
      expect((e as Error).message).toMatch(m);
    }
  });

  test("series: sorted by time; the host from --host when the source has none, or refused; free from the fleet's total when the source has no total", () => {
    const s = [
      { host: null, index: 0, t: T + 60_000, used: 10, free: null, total: null },
      { host: null, index: 0, t: T, used: 20, free: null, total: null },
    ];
    expect(() => cardSeries(s, opts)).toThrow(/do not name the host/);
    expect(() => cardSeries(s, { ...opts, defaultHost: "fv-ml1" })).toThrow(/fv-ml1 GPU 0: no total memory/);
    const [one] = cardSeries(s, { ...opts, defaultHost: "fv-ml1", fleetTotal: () => 100 });
    expect(one).toMatchObject({ host: "fv-ml1", index: 0, totalBytes: 100, totalSource: "fleet" });
    expect([...(one?.times ?? [])]).toEqual([T, T + 60_000]);
    expect([...(one?.free ?? [])]).toEqual([80, 90]);
  });

  test("DCGM FB_FREE alone: used = the fleet's total − free", () => {
    const [one] = cardSeries([{ host: "h", index: 1, t: T, used: -1, free: 30, total: null }], { ...opts, fleetTotal: () => 100 });
    expect([...(one?.used ?? [])]).toEqual([70]);
  });
});

describe("observed.yaml", () => {
  const card = observeCard(
    {
      host: "fv-ml1",
      index: 0,
      times: Float64Array.from([T, T + 11 * 60_000, T + 20 * 60_000]),
      used: Float64Array.from([50, 90, 95]),
      free: Float64Array.from([50, 10, 5]),
      totalBytes: 100,
      totalSource: "metrics",
    },
    undefined,
  );

  test("what --write writes, the reader reads back", () => {
    const text = writeObservedFile([card], ["metrics/fv-ml1.csv"]);
    const r = readObservedFile(text, "observed.yaml");
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value.cards).toEqual([
      {
        host: "fv-ml1",
        index: 0,
        plateau_free_bytes: 5,
        plateau_at: new Date(T + 20 * 60_000).toISOString(),
        boot_free_bytes: 10,
        creep_bytes: 5,
        total_bytes: 100,
        reserve_bytes: null,
        predicted_used_bytes: null,
        boots: 1,
        samples: 3,
        last_boot_hours: 0.3,
      },
    ]);
    expect(r.value.sources).toEqual(["metrics/fv-ml1.csv"]);
    expect(text).toMatch(/^# GPU memory at plateau, per card/);
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
    ["version: 1\ncards: [\n", /observed\.yaml:\d+: /],
  ])("malformed: problems with their line, never a throw (%#)", (text, message) => {
    const r = readObservedFile(text, "observed.yaml");
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.problems.map((p) => p.message).join("\n")).toMatch(message);
    expect(r.problems.every((p) => p.line === null || p.line > 0)).toBe(true);
  });
});
