// Issue 30 (items 5 and 6, the engines' own KV evidence) and issue 26 (observe's arguments before
// reading, impossible readings, shown text), end to end: the built CLI on real-format inputs
// (./formats.ts) in a repository with a fleet.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { SaxesParser } from "saxes";
import { makeRepo, type TempRepo } from "../helpers/repo.js";
import { kvgate, ROOT } from "../helpers/cli.js";
import { readObservedFile } from "../../src/observe/observed-file.js";
import { MiB, GiB } from "../../src/units/bytes.js";
import { dcgmRange, dcgmScrape, smiStamp, SMI_HEADER, vllmRange } from "./formats.js";

const T = Date.UTC(2026, 9, 1);
const MIN = 60_000;
const lines = (...l: string[]): string => l.join("\n") + "\n";
const KVGATE_YAML = lines(
  "version: 1",
  "fleet:",
  "  hosts:",
  "    fv-ml1:",
  "      gpus:",
  "        - { index: 0, total: 96GiB, cuda_total: 97887MiB, reserve: 1GiB }",
  "    fv-ml2:",
  "      gpus:",
  "        - { index: 0, total: 24GiB }",
  "observed: observed.yaml",
);
const SEAT = (kv: string) =>
  lines(
    "ENGINE=vllm",
    "HOST=fv-ml1",
    "GPU=0",
    "MODEL=Qwen/Qwen3-8B",
    "MAX_MODEL_LEN=8192",
    `KV_CACHE_MEMORY_BYTES=${kv}`,
    `SERVE_ARGS="--served-model-name gen-small --override-generation-config '{\\"max_new_tokens\\":4096}'"`,
  );

let repo: TempRepo;
beforeAll(async () => {
  repo = await makeRepo();
  repo.write("kvgate.yaml", KVGATE_YAML);
  repo.write("scripts/gen-small.env", SEAT("2GiB"));
  repo.write("observed.yaml", "version: 1\nfrom: 2026-10-01T00:00:00Z\nuntil: 2026-10-02T00:00:00Z\ncards: []\n");
  repo.stage();
  repo.commit("fleet");
});
afterAll(async () => {
  await repo.cleanup();
});

const observe = (args: string[]) => kvgate(["observe", ...args], { cwd: repo.dir });
const file = (name: string, text: string): string => {
  writeFileSync(join(repo.dir, name), text);
  return name;
};

/** Two boots of one card, in free MiB: [boot free at +10 min, plateau, creep] = [7887, 87, 7800] and [12887, 11887, 1000]. */
function twoBoots(): string {
  const out = [SMI_HEADER];
  let m = 0;
  const put = (used: number) => out.push(`${smiStamp(T + m++ * MIN)}, 0, ${used} MiB, 97887 MiB`);
  for (const [plateauUsed, settledUsed] of [
    [97_800, 90_000],
    [86_000, 85_000],
  ] as const) {
    put(400);
    for (let i = 1; i < 10; i++) put(60_000);
    put(settledUsed);
    for (let i = 1; i <= 1440; i++) put(Math.min(plateauUsed, settledUsed + i * 10));
  }
  return out.join("\n") + "\n";
}

describe("issue 30 item 6: each boot once", () => {
  test("a two-boot nvidia-smi series: JSON holds each boot's figures once; the card names its plateau's boot", () => {
    file("two.csv", twoBoots());
    const r = observe(["--metrics", "two.csv", "--host", "fv-ml1", "--format", "json"]);
    expect(r.code).toBe(0);
    const card = JSON.parse(r.stdout).cards[0];
    const mib = (b: number | null) => (b === null ? null : b / MiB);
    expect(
      card.boots.map((b: { boot_free_bytes: number; plateau_free_bytes: number; creep_bytes: number }) => [
        mib(b.boot_free_bytes),
        mib(b.plateau_free_bytes),
        mib(b.creep_bytes),
      ]),
    ).toEqual([
      [7_887, 87, 7_800],
      [12_887, 11_887, 1_000],
    ]);
    expect(card).toMatchObject({ plateau_free_bytes: 87 * MiB, plateau_boot: 1 });
    expect(card).not.toHaveProperty("boot_free_bytes");
    const text = observe(["--metrics", "two.csv", "--host", "fv-ml1"]).stdout;
    expect(text.match(/7\.7 GiB free at \+10 min/g)).toHaveLength(1);
    expect(text.match(/12\.58 GiB free at \+10 min/g)).toHaveLength(1);
    expect(text).toMatch(/plateau 87 MiB free \(2026-10-01 \d\d:\d\d UTC, boot 1\)/);
    expect(text).toContain("← the card's plateau");
  });
});

describe("issue 26: arguments before reading, impossible readings refused with their line", () => {
  test("a missing --host is said before the file is read (a bad header 50,000 lines in is never reached)", () => {
    const body = twoBoots().split("\n").slice(0, 2);
    const rows = Array.from({ length: 50_000 }, (_, i) => `${smiStamp(T + i * MIN)}, 0, 90000 MiB, 97887 MiB`);
    file("late-bad.csv", [...body, ...rows, "timestamp, index, memory.total [MiB]", ""].join("\n"));
    const r = observe(["--metrics", "late-bad.csv"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/late-bad\.csv \(nvidia-smi\) does not name the host of its cards/);
    expect(r.stderr).not.toMatch(/header lacks/);
    // With --host the file is read, and the bad header is reached.
    const read = observe(["--metrics", "late-bad.csv", "--host", "fv-ml1"]);
    expect(read.code).toBe(2);
    expect(read.stderr).toMatch(/late-bad\.csv:50003: the nvidia-smi header lacks memory\.used/);
  });

  test("used above the card's total: skipped with file and line; --write writes a file check reads", () => {
    const ok = twoBoots().trimEnd().split("\n");
    ok.splice(20, 0, `${smiStamp(T + 19 * MIN + 30_000)}, 0, 99999 MiB, 97887 MiB`);
    file("over.csv", ok.join("\n") + "\n");
    const r = observe(["--metrics", "over.csv", "--host", "fv-ml1", "--write", "observed.yaml"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("1 reading was skipped:\n  over.csv:21: impossible reading: used 99999 MiB is above its total, 97887 MiB");
    const read = readObservedFile(readFileSync(join(repo.dir, "observed.yaml"), "utf8"), "observed.yaml");
    expect(read.ok).toBe(true);
    if (read.ok) expect(read.value.cards[0]?.plateau_free_bytes).toBe(87 * MiB);
    // gpu/plateau reads it: the card is below its reserve at plateau (87 MiB free), not a malformed file.
    const check = kvgate(["check", "--all", "--format", "json"], { cwd: repo.dir });
    const plateau = JSON.parse(check.stdout).findings.filter((f: { rule: string }) => f.rule === "gpu/plateau");
    expect(plateau.map((f: { data: { plateau_free_bytes?: number } }) => f.data.plateau_free_bytes)).toEqual([87 * MiB]);
  });
});

describe("issue 30 item 5: monitoring metadata", () => {
  const used = (host: string) =>
    dcgmRange([
      {
        name: "DCGM_FI_DEV_FB_USED",
        gpu: 0,
        host,
        values: [
          [T, 96_000],
          [T + 11 * MIN, 96_100],
        ],
      },
    ]);

  test("the DCGM exporter in docker labels Hostname with its container id: without --host a note says so; --host reads it as the host", () => {
    file(
      "docker.json",
      dcgmRange([
        { name: "DCGM_FI_DEV_FB_USED", gpu: 0, host: "3f4e9a1c2b7d", values: [[T, 96_000]] },
        { name: "DCGM_FI_DEV_FB_FREE", gpu: 0, host: "3f4e9a1c2b7d", values: [[T, 1_887]] },
      ]),
    );
    const bare = JSON.parse(observe(["--metrics", "docker.json", "--format", "json"]).stdout);
    expect(bare.cards[0]).toMatchObject({ host: "3f4e9a1c2b7d", reserve_bytes: null });
    expect(bare.notes.join("\n")).toMatch(
      /label cards with host 3f4e9a1c2b7d, which kvgate\.yaml's fleet\.hosts does not list .*: name the host with --host/,
    );
    const named = JSON.parse(observe(["--metrics", "docker.json", "--host", "fv-ml1", "--format", "json"]).stdout);
    expect(named.cards[0]).toMatchObject({ host: "fv-ml1", reserve_bytes: GiB });
    expect(named.notes.join("\n")).toMatch(/its cards are labelled host 3f4e9a1c2b7d: read as fv-ml1 \(--host\)/);
  });

  test("FB_USED alone: free memory from cuda_total (97,887 MiB), not the card's 96 GiB (417 MiB apart)", () => {
    file("used.json", used("fv-ml1"));
    const card = JSON.parse(observe(["--metrics", "used.json", "--format", "json"]).stdout).cards[0];
    expect(card).toMatchObject({ total_bytes: 97_887 * MiB, total_source: "fleet", plateau_free_bytes: (97_887 - 96_100) * MiB });
  });

  test("a DCGM /metrics scrape (Prometheus text) is named as such, with the query to run instead", () => {
    file("dcgm.prom", dcgmScrape("fv-ml1", [{ used: 93_851, free: 4_036 }]));
    const r = observe(["--metrics", "dcgm.prom", "--host", "fv-ml1"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /dcgm\.prom is Prometheus text from one \/metrics scrape: 2 DCGM samples without a time, one instant, not a series/,
    );
    expect(r.stderr).toMatch(/fix: query Prometheus over a range instead .*query_range/);
    expect(r.stderr).not.toMatch(/columns/);
  });
});

describe("issue 26: every shown text escaped, the SVG well-formed XML", () => {
  const HOST = "evil\u001b[2J\u202ehost<&>'\"";
  test("an ESC (and a bidi override, and XML's specials) in a DCGM Hostname: visible escapes in text and JSON, valid XML in SVG", () => {
    file(
      "evil.json",
      dcgmRange([
        {
          name: "DCGM_FI_DEV_FB_USED",
          gpu: 0,
          host: HOST,
          values: [
            [T, 1000],
            [T + 11 * MIN, 1100],
          ],
        },
        {
          name: "DCGM_FI_DEV_FB_FREE",
          gpu: 0,
          host: HOST,
          values: [
            [T, 96_887],
            [T + 11 * MIN, 96_787],
          ],
        },
      ]),
    );
    for (const format of ["text", "json", "svg"]) {
      const r = observe(["--metrics", "evil.json", "--format", format]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout + r.stderr).not.toMatch(/[\u001b\u202e]/);
      if (format === "json") expect(JSON.parse(r.stdout).cards[0].host).toBe("evil\\e[2J\\u{202e}host<&>'\"");
      if (format === "text") expect(r.stdout).toContain("evil\\e[2J\\u{202e}host<&>'\" GPU 0");
      if (format === "svg") {
        const errors: string[] = [];
        const parser = new SaxesParser({ xmlns: true });
        parser.on("error", (e) => errors.push(e.message));
        let text = "";
        parser.on("text", (t) => (text += t));
        parser.write(r.stdout).close();
        expect(errors).toEqual([]);
        expect(text).toContain("evil\\e[2J\\u{202e}host<&>'\" · GPU 0");
      }
    }
  });
});

describe("the engines' own KV evidence: observe, observed.yaml, kv/preempted", () => {
  const at = (m: number) => T + m * MIN;
  const metrics = () =>
    vllmRange("gen-small", {
      kv: [0.5, 1, 1, 0.9].map((v, m) => [at(m), v]),
      running: [4, 9, 9, 8].map((v, m) => [at(m), v]),
      waiting: [0, 7, 12, 3].map((v, m) => [at(m), v]),
      preemptions: [0, 6, 11, 11].map((v, m) => [at(m), v]),
    });

  test("per seat: peak KV use, the requests running and waiting, each preemption window; written for the gate", () => {
    file("vllm.json", metrics());
    const r = observe(["--metrics", "vllm.json", "--format", "json", "--write", "observed.yaml"]);
    expect(r.code, r.stderr).toBe(0);
    const seat = JSON.parse(r.stdout).seats[0];
    expect(seat).toMatchObject({
      name: "gen-small",
      service: "gen-small",
      peak_kv_usage: 1,
      kv_bytes: 2 * GiB,
      peak_kv_bytes: 2 * GiB,
      peak_running: 9,
      peak_waiting: 12,
      preemptions: 11,
      preemption_windows: [{ from: new Date(at(0)).toISOString(), until: new Date(at(2)).toISOString(), preemptions: 11 }],
    });
    const text = observe(["--metrics", "vllm.json"]).stdout;
    expect(text).toContain("gen-small (vLLM): 16 samples of 1 engine series, 2026-10-01 00:00 → 2026-10-01 00:03 UTC");
    expect(text).toContain("peak KV use 100.0% (2 GiB of its 2 GiB KV) at 2026-10-01 00:01 UTC");
    expect(text).toContain("11 preemptions in 1 window: its KV was too small for its traffic then");
    // The reference's worked example (docs/usage-observe.md) is this output, word for word.
    const readme = readFileSync(join(ROOT, "docs", "usage-observe.md"), "utf8");
    const example = /Say `vllm:num_preemptions_total` reads[^\n]*\n\n```\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(example).toBeDefined();
    expect(text).toContain(example as string);
    const written = readObservedFile(readFileSync(join(repo.dir, "observed.yaml"), "utf8"), "observed.yaml");
    expect(written.ok && written.value.seats).toEqual([
      {
        service: "gen-small",
        kv_bytes: 2 * GiB,
        peak_kv_usage: 1,
        preemptions: 11,
        windows: [{ from: new Date(at(0)).toISOString(), until: new Date(at(2)).toISOString(), preemptions: 11 }],
      },
    ]);
  });

  test("check warns kv/preempted at the pin; the fix it names (raise the pin above 2 GiB), applied, answers it", () => {
    file("vllm.json", metrics());
    expect(observe(["--metrics", "vllm.json", "--write", "observed.yaml"]).code).toBe(0);
    const warned = JSON.parse(kvgate(["check", "--all", "--format", "json"], { cwd: repo.dir }).stdout);
    const f = warned.findings.filter((x: { rule: string }) => x.rule === "kv/preempted");
    expect(f).toHaveLength(1);
    expect(f[0]).toMatchObject({
      severity: "warning",
      file: "scripts/gen-small.env",
      line: 6,
      data: { preemptions: 11, observed_kv_bytes: 2 * GiB },
    });
    expect(f[0].message).toMatch(/raise KV_CACHE_MEMORY_BYTES above 2 GiB/);
    repo.write("scripts/gen-small.env", SEAT("2560MiB"));
    const after = JSON.parse(kvgate(["check", "--all", "--format", "json"], { cwd: repo.dir }).stdout);
    expect(after.findings.filter((x: { rule: string }) => x.rule === "kv/preempted")).toEqual([]);
    repo.write("scripts/gen-small.env", SEAT("2GiB"));
  });
});
