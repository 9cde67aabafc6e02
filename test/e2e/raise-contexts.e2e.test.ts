// Issue 16 item 6 through the CLI: `kvgate plan --raise-contexts` on the example fleet (without its
// playbooks, which deploy today's settings). Four seats run below their model's maximum: gen-small and
// meromero-rp are the owner's pins (kv.seats), so they stay; erp-seat (Llama-3.2-3B, 28 layers × 8 KV
// heads × 128 × 2 B × 2 = 112 KiB/token) would need 1.25 × 131,072 × 112 KiB = 17.5 GiB, 13 GiB more
// than its 4.5 GiB pin, and no card has 13 GiB spare (7.4 and 9.9 GiB); intern-decision (Qwen3-8B,
// 144 KiB/token) at 40,960 needs 1.25 × 5.625 GiB → 7.5 GiB, 1.5 GiB more than its 6 GiB pin, which
// gpu 1's 9.9 GiB spare holds (8.4 GiB after) but its neighbour gen-small's boot does not: gen-small
// asks 0.25 × 96 = 24 GiB at boot, and behind intern-decision's 24.8 GiB and meromero-rp's 46.8 GiB
// only 96 − 71.6 − 0.5 (its CUDA context) = 23.9 GiB is free. With gen-small at 0.2 (19.2 GiB, still
// above its own 15.1 GiB) intern-decision is raised, and the fixes applied pass check --all.
import { afterEach, describe, expect, test } from "vitest";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { makeRepo, type TempRepo } from "../helpers/repo.js";
import { kvgate } from "../helpers/cli.js";
import { commitFleet, setEnv } from "./fixtures/fleet.js";

async function exampleFleet(genSmallUtilization?: string): Promise<TempRepo> {
  const r = await makeRepo();
  made.push(r);
  commitFleet(r, { without: ["playbooks"] });
  if (genSmallUtilization !== undefined) {
    r.write(
      "scripts/gen-small.env",
      setEnv(readFileSync(join(r.dir, "scripts/gen-small.env"), "utf8"), { GPU_MEMORY_UTILIZATION: genSmallUtilization }),
    );
    r.stage();
    r.commit(`gen-small asks ${genSmallUtilization}`);
  }
  return r;
}

const GiB = 1024 ** 3;
const made: TempRepo[] = [];
afterEach(async () => {
  for (const r of made.splice(0)) await r.cleanup();
});

interface Fix {
  file: string;
  line: number | null;
  key: string;
  value: string;
}

/** The open findings of a JSON run, as "rule service", notices included. */
function openOf(run: { stdout: string }): string[] {
  const findings = JSON.parse(run.stdout).findings as { rule: string; status: string; service: string }[];
  return findings.filter((f) => f.status === "open").map((f) => `${f.rule} ${f.service}`);
}

describe("kvgate plan --raise-contexts", () => {
  test("raises the seats the cards can hold; the fixes applied pass check --all at the maximum", async () => {
    const r = await exampleFleet("0.2");
    const before = kvgate(["check", "--all", "--format", "json"], { cwd: r.dir });
    expect(before.code).toBe(0);
    expect(openOf(before)).toContain("kv/context-headroom intern-decision");

    const run = kvgate(["plan", "--raise-contexts", "--host", "fv-ml1", "--format", "json"], { cwd: r.dir });
    expect(run.code).toBe(0);
    const plan = JSON.parse(run.stdout);
    expect(plan.raised).toEqual([
      {
        name: "intern-decision",
        from_tokens: 32_768,
        to_tokens: 40_960,
        kv_from_bytes: 6 * GiB,
        kv_to_bytes: 7.5 * GiB,
        kv_source: "pinned",
        fixes: [
          { file: "scripts/intern-decision.env", line: expect.any(Number), key: "MAX_MODEL_LEN", value: "40960" },
          { file: "scripts/intern-decision.env", line: expect.any(Number), key: "KV_CACHE_MEMORY_BYTES", value: String(7.5 * GiB) },
        ],
      },
    ]);
    expect(plan.kept.map((k: { name: string }) => k.name)).toEqual(["erp-seat", "gen-small", "meromero-rp"]);
    expect(plan.kept[0].reason).toContain("no layout holds it at its maximum");
    expect(plan.kept[1].reason).toContain("the owner's");
    expect(plan.exhaustive).toBe(true);
    expect(plan.layout).toMatchObject({ boots: true, optimal: true, moves: [] });
    expect(plan.layout.spares["1"]).toBeCloseTo(8.4 * GiB, -8);
    expect(plan.layout.worst_spare_bytes).toBeGreaterThanOrEqual(0);

    const text = kvgate(["plan", "--raise-contexts", "--host", "fv-ml1"], { cwd: r.dir });
    expect(text.stdout).toContain("raise contexts on fv-ml1: 1 of 4 seats below their model's maximum can run at it");
    expect(text.stdout).toContain(
      "intern-decision: 32,768 → 40,960 tokens, KV 6 GiB → 7.5 GiB  set MAX_MODEL_LEN=40960, KV_CACHE_MEMORY_BYTES=8053063680 in scripts/intern-decision.env",
    );
    for (const f of plan.raised[0].fixes as Fix[]) r.write(f.file, setEnv(readFileSync(join(r.dir, f.file), "utf8"), { [f.key]: f.value }));
    const after = kvgate(["check", "--all", "--format", "json"], { cwd: r.dir });
    expect(after.code).toBe(0);
    const open = openOf(after);
    expect(open.filter((x) => !x.startsWith("kv/context-headroom ") && !x.startsWith("radiance/"))).toEqual([]);
    // The raised seat runs at its maximum: no notice left for it, and kv/covers-context holds at 40,960.
    expect(open).not.toContain("kv/context-headroom intern-decision");
    const explain = JSON.parse(kvgate(["explain", "--format", "json"], { cwd: r.dir }).stdout);
    const seat = (explain.services as { name: string; max_model_len: number; kv: { required_bytes: number; pinned_bytes: number } }[]).find(
      (x) => x.name === "intern-decision",
    );
    expect(seat).toMatchObject({ max_model_len: 40_960, kv: { required_bytes: 7.5 * GiB, pinned_bytes: 7.5 * GiB } });

    // Run again on the applied fleet: nothing left to raise but what the owner pins or no card holds.
    const again = kvgate(["plan", "--raise-contexts", "--host", "fv-ml1"], { cwd: r.dir }).stdout;
    expect(again).toContain("raise contexts on fv-ml1: 0 of 3 seats below their model's maximum can run at it");
    expect(again).not.toContain("intern-decision: stays");
  });

  test("a raise whose pin would stop a neighbour booting last (kv/boot-check) is not proposed", async () => {
    const r = await exampleFleet();
    // kv/context-headroom holds its notice back for the same reason.
    expect(openOf(kvgate(["check", "--all", "--format", "json"], { cwd: r.dir }))).not.toContain("kv/context-headroom intern-decision");
    const plan = JSON.parse(kvgate(["plan", "--raise-contexts", "--host", "fv-ml1", "--format", "json"], { cwd: r.dir }).stdout);
    expect(plan.raised).toEqual([]);
    expect(plan.kept.find((k: { name: string }) => k.name === "intern-decision")).toMatchObject({
      max_model_len: 32_768,
      native_max: 40_960,
      reason: expect.stringContaining("no layout holds it"),
    });
    expect(plan.layout).toMatchObject({ boots: true, moves: [] });
    // Applied by hand anyway, the same raise is refused by the gate at gen-small's boot.
    const env = readFileSync(join(r.dir, "scripts/intern-decision.env"), "utf8");
    r.write("scripts/intern-decision.env", setEnv(env, { MAX_MODEL_LEN: "40960", KV_CACHE_MEMORY_BYTES: String(7.5 * GiB) }));
    const run = kvgate(["check", "--all", "--format", "json"], { cwd: r.dir });
    expect(run.code).toBe(1);
    expect(openOf(run)).toContain("kv/boot-check gen-small");
  });
});
