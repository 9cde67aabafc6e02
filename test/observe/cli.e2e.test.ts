// `kvgate observe` end to end: the built CLI on a generated month of per-minute samples of fv-ml1's two
// cards (bench/gen-gpu-samples.mjs) in all three formats; the example fleet's observed.yaml is what it
// writes; and the SVG, opened in a real browser (Debian's headless Chromium), renders a picture.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { makeFolder, type TempFolder } from "../helpers/repo.js";
import { kvgate, ROOT } from "../helpers/cli.js";
import { readObservedFile } from "../../src/observe/observed-file.js";
import { MiB } from "../../src/units/bytes.js";

const FLEET = join(ROOT, "examples", "fleet");
const MONTH = "fv-ml1-gpu-month";
let dir: TempFolder;

beforeAll(async () => {
  dir = await makeFolder();
  for (const [format, ext] of [
    ["nvidia-smi", "csv"],
    ["prometheus", "json"],
    ["beszel", "beszel.json"],
  ]) {
    execFileSync(
      process.execPath,
      [join(ROOT, "bench", "gen-gpu-samples.mjs"), "--format", format as string, "--out", join(dir.dir, `${MONTH}.${ext}`)],
      { stdio: "ignore" },
    );
  }
}, 60_000);
afterAll(async () => {
  await dir.cleanup();
});

const observe = (args: string[]) => kvgate(["observe", ...args, "--repo", FLEET], { cwd: dir.dir });
type Card = {
  host: string;
  index: number;
  plateau_free_bytes: number;
  boots: unknown[];
  plateau_boot: number;
  plateau_margin_bytes: number;
};

describe("a month of fv-ml1", () => {
  test("GPU 0 creeps to ~60 MiB free after each boot, into its 1 GiB reserve; GPU 1 steps up 2.5 GB on 10-03", () => {
    const r = observe(["--metrics", `${MONTH}.csv`, "--host", "fv-ml1"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("fv-ml1 GPU 0: 43,200 samples, 2026-09-08 00:00 → 2026-10-07 23:59 UTC, 6 boots");
    expect(r.stdout).toMatch(/plateau 60 MiB free \(2026-09-2\d \d\d:\d\d UTC, boot 3\): 0\.94 GiB into the 1 GiB reserve/);
    expect(r.stdout).toMatch(/ {4}5 {2}2026-10-01 09:12 → 2026-10-05 22:25: 1\.04 GiB free at \+10 min → plateau \d\d MiB/);
    expect(r.stdout).toMatch(
      /note: at plateau the card had 0\.94 GiB less free than its 1 GiB reserve: headroom counts at plateau, not at boot/,
    );
    expect(r.stdout).toContain("fv-ml1 GPU 1: 43,200 samples, 2026-09-08 00:00 → 2026-10-07 23:59 UTC, 5 boots");
    expect(r.stdout).toMatch(/2026-10-03 02:34 → 2026-10-05 22:39: 4\.73 GiB free at \+10 min/);
  });

  test("nvidia-smi, DCGM via Prometheus and Beszel (× 1.024) give the same boots and plateaus", () => {
    const cards = (file: string): Card[] => {
      const r = observe(["--metrics", file, "--host", "fv-ml1", "--format", "json"]);
      expect(r.code).toBe(0);
      return JSON.parse(r.stdout).cards;
    };
    const [smi, prom, besz] = [cards(`${MONTH}.csv`), cards(`${MONTH}.json`), cards(`${MONTH}.beszel.json`)];
    for (const other of [prom, besz]) {
      expect(other.map((c) => [c.host, c.index, c.boots.length])).toEqual(smi.map((c) => [c.host, c.index, c.boots.length]));
      // Beszel keeps two decimals of mu: a few KiB of rounding.
      other.forEach((c, i) => expect(Math.abs(c.plateau_free_bytes - (smi[i] as Card).plateau_free_bytes)).toBeLessThan(0.02 * MiB));
    }
  });

  test("the example fleet's observed.yaml is what --since the rebalance --write makes (regenerate with the command in its README section)", () => {
    const r = observe(["--metrics", `${MONTH}.csv`, "--host", "fv-ml1", "--since", "2026-10-05T22:49:00Z", "--write", "observed.yaml"]);
    expect(r.code).toBe(0);
    const written = readFileSync(join(dir.dir, "observed.yaml"), "utf8");
    expect(written).toBe(readFileSync(join(FLEET, "observed.yaml"), "utf8"));
    const parsed = readObservedFile(written, "observed.yaml");
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    // After the rebalance: GPU 0 creeps to ~2.3 GiB free, above its 1 GiB reserve; GPU 1 to ~6.8 GiB.
    expect(parsed.value.cards.map((c) => [c.index, Math.round((c.plateau_free_bytes / MiB / 1024) * 100) / 100, c.reserve_bytes])).toEqual([
      [0, 2.32, 1024 * MiB],
      [1, 6.78, 1024 * MiB],
    ]);
  });

  test("the SVG renders in a real browser: headless Chromium parses it and screenshots a picture", () => {
    const r = observe(["--metrics", `${MONTH}.csv`, "--host", "fv-ml1", "--format", "svg", "--output", "month.svg"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("");
    const svg = readFileSync(join(dir.dir, "month.svg"), "utf8");
    expect(svg).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg" width="1100" height="710"/);
    expect(svg).toContain("fv-ml1 · GPU 0");
    expect(svg).toContain("plateau 60 MiB free: 0.94 GiB into the 1 GiB reserve");
    expect(svg).toContain("reserve: keep 1 GiB free");
    expect(svg).toMatch(/kvgate predicts 87\.6 GiB used/);
    expect((svg.match(/>boot Sep 14</g) ?? []).length).toBe(1);

    const chromium = ["chromium", "chromium-browser", "google-chrome"].find((c) => spawnSync("which", [c]).status === 0);
    if (chromium === undefined) throw new Error("no Chromium: apt-get install -y chromium (as .ci/run does)");
    const url = `file://${join(dir.dir, "month.svg")}`;
    const flags = [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--hide-scrollbars",
      "--no-first-run",
      `--user-data-dir=${join(dir.dir, "chromium-profile")}`,
    ];
    // The DOM as the browser parsed it: an XML error would show as a <parsererror>.
    const dom = spawnSync(chromium, [...flags, "--dump-dom", url], { encoding: "utf8", timeout: 60_000 });
    expect(dom.stdout).toContain("fv-ml1 · GPU 1");
    expect(dom.stdout).not.toContain("parsererror");
    const png = join(dir.dir, "month.png");
    spawnSync(chromium, [...flags, "--window-size=1100,710", `--screenshot=${png}`, url], { timeout: 60_000 });
    expect(existsSync(png)).toBe(true);
    const bytes = readFileSync(png);
    expect(bytes.subarray(1, 4).toString("latin1")).toBe("PNG");
    expect([bytes.readUInt32BE(16), bytes.readUInt32BE(20)]).toEqual([1100, 710]);
    // A blank page of that size compresses to a few KB; two panels of lines and text do not.
    expect(statSync(png).size).toBeGreaterThan(40_000);
  }, 120_000);
});

describe("bad input", () => {
  test.each([
    [[], /name the metrics: --metrics FILE\.\.\.[\s\S]*usage: kvgate observe/],
    [
      ["--metrics", `${MONTH}.csv`],
      /fv-ml1-gpu-month\.csv \(nvidia-smi\) does not name the host of its cards[\s\S]*fix: name it with --host HOST \(one of kvgate\.yaml's fleet\.hosts: fv-ml1, fv-ml2\)/,
    ],
    [
      ["--metrics", `${MONTH}.csv`, "--host", "nope"],
      /unknown host "nope"[\s\S]*fix: name one of kvgate\.yaml's fleet\.hosts: fv-ml1, fv-ml2/,
    ],
    [["--metrics", "missing.csv", "--host", "fv-ml1"], /cannot read missing\.csv: no such file/],
    [["--metrics", `${MONTH}.csv`, "--host", "fv-ml1", "--since", "2027-01-01"], /no GPU memory readings or vLLM metrics in the window/],
    [["--metrics", `${MONTH}.csv`, "--format", "png"], /--format must be one of text, json, svg/],
  ])("%j → exit 2", (args, message) => {
    const r = observe(args);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
  });

  test("a CSV with skipped readings: counted and listed with file and line, exit 0", () => {
    const lines = readFileSync(join(dir.dir, `${MONTH}.csv`), "utf8")
      .split("\n")
      .slice(0, 200);
    lines[5] = "2026/09/08 00:02:00.000, 0, [N/A], 97887 MiB";
    dir.write("some-bad.csv", lines.join("\n"));
    const r = observe(["--metrics", "some-bad.csv", "--host", "fv-ml1"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('1 reading was skipped:\n  some-bad.csv:6: memory.used is not MiB: "[N/A]"');
    expect(r.stdout).toContain("kvgate observe: some-bad.csv (nvidia-smi); times UTC");
  });
});
