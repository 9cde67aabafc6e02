// Issue 12 item 7 through the CLI: a layout `kvgate plan` calls proven optimal passes the gate's own
// kv/boot-check and gpu/fits once applied to the env files. The fleet is the example fleet (without its
// playbooks, which deploy today's GPUs and would report the moved seats as drift) with meromero-rp at
// utilization 0.6 and voices moved to gpu 1. The layout with the largest worst spare (8.4 GiB: coder
// and cyberprev on gpu 1, meromero-rp and voices on gpu 0) leaves meromero-rp 56.7 GiB free behind its
// neighbours for the 0.6 × 96 = 57.6 GiB it asks at boot: the gate refuses it, so plan must not offer it.
import { afterEach, describe, expect, test } from "vitest";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { makeRepo, type TempRepo } from "../helpers/repo.js";
import { kvgate } from "../helpers/cli.js";
import { commitFleet, setEnv } from "./fixtures/fleet.js";

const GiB = 1024 ** 3;
const made: TempRepo[] = [];
afterEach(async () => {
  for (const r of made.splice(0)) await r.cleanup();
});

async function crowdedFleet(): Promise<TempRepo> {
  const r = await makeRepo();
  made.push(r);
  commitFleet(r, { without: ["playbooks"] });
  edit(r, "scripts/meromero-rp.env", { GPU_MEMORY_UTILIZATION: "0.58" });
  edit(r, "scripts/voices.env", { GPU: "1" });
  r.stage();
  r.commit("voices to gpu 1, meromero-rp asks 0.58");
  return r;
}

function edit(r: TempRepo, file: string, values: Record<string, string>): void {
  r.write(file, setEnv(readFileSync(join(r.dir, file), "utf8"), values));
}

/** The open errors and warnings of a JSON run, as "rule service" (notices such as radiance/funding pass). */
function rulesOf(run: { stdout: string }): string[] {
  const findings = JSON.parse(run.stdout).findings as { rule: string; status: string; severity: string; service: string }[];
  return findings.filter((f) => f.status === "open" && f.severity !== "notice").map((f) => `${f.rule} ${f.service}`);
}

describe("kvgate plan keeps the gate's boot check", () => {
  test("the proven optimal layout, applied to the env files, passes check --all", async () => {
    const r = await crowdedFleet();
    const today = kvgate(["check", "--all", "--format", "json"], { cwd: r.dir });
    expect(today.code).toBe(1);
    expect(rulesOf(today).some((x) => x.startsWith("gpu/fits "))).toBe(true);

    const run = kvgate(["plan", "--host", "fv-ml1", "--format", "json"], { cwd: r.dir });
    expect(run.code).toBe(0);
    const plan = JSON.parse(run.stdout);
    expect(plan).toMatchObject({ optimal: true, boots: true, resolution_bytes: 2 ** 20 });
    // The boot check costs 1 GiB of worst spare against the unconstrained 8.4 GiB layout.
    expect(plan.worst_spare_bytes).toBeCloseTo(7.4 * GiB, -7);
    expect(plan.worst_spare_bound_bytes - plan.worst_spare_bytes).toBeLessThan(2 ** 20);
    expect(plan.moves).toEqual([{ name: "voices", kind: "seat", from: 1, to: 0 }]);
    expect(plan.assignment).toMatchObject({ "meromero-rp": 1, voices: 0, coder: 0, cyberprev: 0 });

    for (const m of plan.moves as { name: string; to: number }[]) edit(r, `scripts/${m.name}.env`, { GPU: String(m.to) });
    const after = kvgate(["check", "--all", "--format", "json"], { cwd: r.dir });
    expect(rulesOf(after)).toEqual([]);
    expect(after.code).toBe(0);
    const text = kvgate(["plan", "--host", "fv-ml1"], { cwd: r.dir });
    expect(text.stdout).toContain("worst card spare 7.4 GiB (today 7.4 GiB), proven optimal to 1 MiB");
    expect(text.stdout).toContain("no moves: today's layout is already optimal");
  });

  test("the layout with the largest worst spare fails kv/boot-check: the one plan declines", async () => {
    const r = await crowdedFleet();
    for (const [name, gpu] of [
      ["coder", "1"],
      ["cyberprev", "1"],
      ["meromero-rp", "0"],
      ["voices", "0"],
    ] as const)
      edit(r, `scripts/${name}.env`, { GPU: gpu });
    const run = kvgate(["check", "--all", "--format", "json"], { cwd: r.dir });
    expect(run.code).toBe(1);
    // Every open error is a boot failure (the footprints fit: no gpu/fits), each short of what it asks.
    const boots = (
      JSON.parse(run.stdout).findings as {
        rule: string;
        status: string;
        severity: string;
        data: Record<string, number> & { host: string; gpu: number };
      }[]
    ).filter((f) => f.status === "open" && f.severity === "error");
    expect(boots.length).toBeGreaterThan(0);
    expect(boots.every((f) => f.rule === "kv/boot-check")).toBe(true);
    for (const f of boots) {
      expect(f.data.asked_bytes).toBe(Math.round(f.data.utilization! * f.data.total_bytes!));
      expect(f.data.free_bytes).toBeLessThan(f.data.asked_bytes!);
    }
    // explain names each card's tightest moment with the gate's own figures: its worst boot margin is
    // no larger than any boot finding's on that card.
    const explain = JSON.parse(kvgate(["explain", "--format", "json"], { cwd: r.dir }).stdout);
    for (const f of boots) {
      const gpu = explain.gpus.find((g: { host: string; index: number }) => g.host === f.data.host && g.index === f.data.gpu);
      expect(gpu.worst_boot.margin_bytes).toBeLessThanOrEqual(f.data.free_bytes! - f.data.asked_bytes!);
      expect(gpu.worst_boot.margin_bytes).toBeLessThan(0);
    }
    expect(kvgate(["explain"], { cwd: r.dir }).stdout).toMatch(/worst boot order: .* short by [\d.]+ GiB: it fails to boot/);
    // plan sees this layout's larger worst spare and still declines it for one that boots
    const plan = JSON.parse(kvgate(["plan", "--host", "fv-ml1", "--format", "json"], { cwd: r.dir }).stdout);
    expect(plan.today_worst_spare_bytes).toBeGreaterThan(plan.worst_spare_bytes);
    expect(plan.boots).toBe(true);
  });

  test("no layout boots every seat: plan says so and exits 0 without claiming an optimum", async () => {
    const r = await crowdedFleet();
    edit(r, "scripts/meromero-rp.env", { GPU_MEMORY_UTILIZATION: "0.7" });
    const plan = JSON.parse(kvgate(["plan", "--host", "fv-ml1", "--format", "json"], { cwd: r.dir }).stdout);
    expect(plan).toMatchObject({ optimal: false, boots: false });
    expect(plan.notes.join(" ")).toContain("no layout lets every vLLM seat boot last");
    const text = kvgate(["plan", "--host", "fv-ml1"], { cwd: r.dir });
    expect(text.stdout).toContain("no layout lets every vLLM seat boot last (kv/boot-check): the layout shown fails the gate");
  });
});
