// Issue 4's done-means, end to end: the built CLI in temp repos holding a copy of examples/fleet, whose
// radiance endpoint frank-archon (fv-ml2, cards 26,624 and 27,320 MiB) is the subject of every case.
//
// Funding at the committed values (contract section 6, card 0 is the budget; MiB):
//   capacity_0 = 26,624 - 410 - 64 - HEADROOM - 987 - 256 - 96 - 128;  elastic_0 = capacity_0 - 9,800
//   expert_floor = min(45,700 + 512, max(45,700 + 2 × 700 - HOST_POOL, 0))   (2,172 at pool 44,928)
//   tokens = floor(kv_0 / (73,728 B × 16)) × 16;  demand = 8 × 24,576 = 196,608
//   headroom 96: kv_0 = 12,615 MiB → 179,408   headroom 48: kv_0 = 12,663 MiB → 180,096
//   headroom 48 + pool 45,952: floor 1,148, kv_0 = 13,687 MiB → 194,656 (card 1 reaches kv_cap: 196,608)
//   headroom 96 + pool 45,952: kv_0 = 13,639 MiB → 193,968
// TTM ledger at pool 45,952: 2 × 45,952 + 0 + 4,096 + 2,048 + 16 × 111.98 = 99,839.68 → TTM_MIN_MIB ≥ 99,840.
import { afterEach, describe, expect, test } from "vitest";
import { makeFolder, type TempFolder } from "../helpers/repo.js";
import { kvgate } from "../helpers/cli.js";
import {
  FRANK,
  GUARD,
  editFrank,
  fleetFiles,
  fleetRepo as fleetRepoOf,
  lastLine,
  lineOf,
  only,
  openErrors,
  report,
  touchGuard,
} from "./fixtures/fleet.js";

const made: TempFolder[] = [];
afterEach(async () => {
  for (const r of made.splice(0)) await r.cleanup();
});
const fleetRepo = () => fleetRepoOf(made);

const MiB = 1024 * 1024;
const frankText = fleetFiles()[FRANK] as string;
const HEADROOM_LINE = lineOf(frankText, "GPU_HEADROOM_MIB=");
const POOL_LINE = lineOf(frankText, "HOST_POOL_MIB=");
const TTM_LINE = lineOf(frankText, "TTM_MIN_MIB=");
/** The pool raised by one 1,024-MiB step with the ledger's floor and target raised and the guard touched. */
const POOL_STEP = { HOST_POOL_MIB: "45952", TTM_MIN_MIB: "99840", TTM_TARGET_MIB: "100864" };

test("the example's line numbers the cases rely on", () => {
  expect([HEADROOM_LINE, POOL_LINE, TTM_LINE]).toEqual([12, 13, 22]);
});

describe("GPU_HEADROOM_MIB alone, staged", () => {
  test("96 → 48 passes and reports the new funding, before → after", async () => {
    const { repo } = await fleetRepo();
    editFrank(repo, { GPU_HEADROOM_MIB: "48" });
    repo.stage();
    const text = kvgate(["check", "--staged"], { cwd: repo.dir });
    expect(text.stderr).toBe("");
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(
      `${FRANK}:${HEADROOM_LINE} notice radiance/funding funds 180,096 of 196,608 tokens of demand (91.6 %); card 0 is the budget; was 179,408 of 196,608 (91.3 %)`,
    );
    expect(lastLine(text)).toBe("kvgate staged: 0 errors, 0 warnings, 1 notice; 8 seats sized on 4 cards; 0 unsized — PASS");

    const run = kvgate(["check", "--staged", "--format", "json"], { cwd: repo.dir });
    expect(run.code).toBe(0);
    const doc = report(run);
    expect(doc).toMatchObject({ mode: "staged", verdict: "pass", counts: { error: 0, warning: 0, notice: 1 } });
    expect(doc.findings.map((f) => f.rule)).toEqual(["radiance/funding"]);
    const f = only(doc, "radiance/funding");
    expect(f).toMatchObject({
      severity: "notice",
      status: "open",
      file: FRANK,
      line: HEADROOM_LINE,
      service: "frank-archon",
      commit: null,
    });
    expect(f.data).toMatchObject({ tokens: 180096, demand_tokens: 196608, funded: 180096 / 196608, budget_card: 0 });
    expect(f.data.before).toEqual({ tokens: 179408, demand_tokens: 196608, funded: 179408 / 196608 });
    expect(f.data.cards[0]).toEqual({ index: 0, tokens: 180096, kv_bytes: 12663 * MiB });
  });

  test("96 → 32 is refused by radiance/headroom at the line, with the floor", async () => {
    const { repo } = await fleetRepo();
    editFrank(repo, { GPU_HEADROOM_MIB: "32" });
    repo.stage();
    const text = kvgate(["check", "--staged"], { cwd: repo.dir });
    expect(text.code).toBe(1);
    expect(text.stdout).toContain(
      `${FRANK}:${HEADROOM_LINE} error radiance/headroom GPU_HEADROOM_MIB 32 is below the floor of 48 MiB (the first rung measured decode-neutral): set GPU_HEADROOM_MIB=48 or more`,
    );
    expect(lastLine(text)).toMatch(/^kvgate staged: 1 error, .* — REFUSED$/);
    const doc = report(kvgate(["check", "--staged", "--format", "json"], { cwd: repo.dir }));
    expect(doc.verdict).toBe("fail");
    expect(openErrors(doc)).toEqual([["radiance/headroom", HEADROOM_LINE]]);
    expect(only(doc, "radiance/headroom").data).toEqual({
      gpu_headroom_mib: 32,
      headroom_floor_mib: 48,
      key: "GPU_HEADROOM_MIB",
      fix: { file: FRANK, line: HEADROOM_LINE, key: "GPU_HEADROOM_MIB", value: "48" },
    });
  });

  test("48, the floor itself, is not refused", async () => {
    const { repo } = await fleetRepo();
    editFrank(repo, { GPU_HEADROOM_MIB: "48" });
    repo.stage();
    const doc = report(kvgate(["check", "--staged", "--format", "json"], { cwd: repo.dir }));
    expect(doc.findings.some((f) => f.rule === "radiance/headroom")).toBe(false);
  });
});

describe("one knob per deploy", () => {
  /** One commit that moves GPU_HEADROOM_MIB and HOST_POOL_MIB (TTM rules satisfied, so only the knob rule speaks). */
  async function pairedCommit(message = "headroom 48 and pool +1,024") {
    const { repo, base } = await fleetRepo();
    editFrank(repo, { GPU_HEADROOM_MIB: "48", ...POOL_STEP });
    touchGuard(repo, "pool 45,952");
    repo.stage();
    const head = repo.commit(message);
    return { repo, base, head };
  }

  test("GPU_HEADROOM_MIB and HOST_POOL_MIB in one commit: refused by knob/one-per-deploy (--commit HEAD)", async () => {
    const { repo, head } = await pairedCommit();
    const text = kvgate(["check", "--commit", "HEAD"], { cwd: repo.dir });
    expect(text.code).toBe(1);
    expect(text.stdout).toContain(
      `${FRANK}:${HEADROOM_LINE} error knob/one-per-deploy 2 sizing knobs change in one deploy (GPU_HEADROOM_MIB 96 → 48, HOST_POOL_MIB 44,928 → 45,952): change one knob per deploy`,
    );
    expect(lastLine(text)).toBe("kvgate commit: 1 error, 0 warnings, 1 notice; 8 seats sized on 4 cards; 0 unsized — REFUSED");
    const doc = report(kvgate(["check", "--commit", "HEAD", "--format", "json"], { cwd: repo.dir }));
    expect(doc.mode).toBe("commit");
    expect(openErrors(doc)).toEqual([["knob/one-per-deploy", HEADROOM_LINE]]);
    const knob = only(doc, "knob/one-per-deploy");
    expect(knob).toMatchObject({ file: FRANK, service: "frank-archon", commit: head, status: "open" });
    expect(knob.data).toMatchObject({ knobs: ["GPU_HEADROOM_MIB", "HOST_POOL_MIB"], engine: "radiance" });
    // the derived TTM_MIN_MIB / TTM_TARGET_MIB moved too, and are not counted as knobs
    expect(knob.data.changes.map((c: { knob: string }) => c.knob)).toEqual(["GPU_HEADROOM_MIB", "HOST_POOL_MIB"]);
    expect(only(doc, "radiance/funding").data).toMatchObject({ tokens: 194656, before: { tokens: 179408 } });
  });

  test("the same change squashed in a range: refused with --unit range", async () => {
    const { repo, base, head } = await pairedCommit();
    const run = kvgate(["check", "--range", `${base}..${head}`, "--unit", "range", "--format", "json"], { cwd: repo.dir });
    expect(run.code).toBe(1);
    const doc = report(run);
    expect(doc.mode).toBe("range");
    expect(openErrors(doc)).toEqual([["knob/one-per-deploy", HEADROOM_LINE]]);
    // the range is one deploy: its findings belong to no single commit
    expect(only(doc, "knob/one-per-deploy")).toMatchObject({ commit: null, data: { knobs: ["GPU_HEADROOM_MIB", "HOST_POOL_MIB"] } });
  });

  test("as two commits it passes with --unit commit (and the default), and is still refused squashed", async () => {
    const { repo, base } = await fleetRepo();
    editFrank(repo, { GPU_HEADROOM_MIB: "48" });
    repo.stage();
    const first = repo.commit("headroom 96 → 48");
    editFrank(repo, { GPU_HEADROOM_MIB: "48", ...POOL_STEP });
    touchGuard(repo, "pool 45,952");
    repo.stage();
    const second = repo.commit("pool +1,024 with its TTM floor and guard");
    const range = `${base}..${second}`;

    const run = kvgate(["check", "--range", range, "--unit", "commit", "--format", "json"], { cwd: repo.dir });
    expect(run.code).toBe(0);
    const doc = report(run);
    expect(doc).toMatchObject({ verdict: "pass", counts: { error: 0, warning: 0, notice: 2 } });
    const funding = doc.findings.filter((f) => f.rule === "radiance/funding");
    expect(funding.map((f) => [f.commit, f.line, f.data.before.tokens, f.data.tokens])).toEqual([
      [first, HEADROOM_LINE, 179408, 180096],
      [second, POOL_LINE, 180096, 194656],
    ]);
    expect(doc.findings.map((f) => f.rule)).toEqual(["radiance/funding", "radiance/funding"]);

    const text = kvgate(["check", "--range", range, "--unit", "commit"], { cwd: repo.dir });
    expect(text.code).toBe(0);
    expect(lastLine(text)).toBe("kvgate range: 0 errors, 0 warnings, 2 notices; 8 seats sized on 4 cards; 0 unsized — PASS");
    expect(kvgate(["check", "--range", range], { cwd: repo.dir }).code).toBe(0);

    const squashed = report(kvgate(["check", "--range", range, "--unit", "range", "--format", "json"], { cwd: repo.dir }));
    expect(openErrors(squashed)).toEqual([["knob/one-per-deploy", HEADROOM_LINE]]);
  });

  test("a knob moved into a flag with the same value, or a moved comment, is not a second knob", async () => {
    const { repo } = await fleetRepo();
    const moved = frankText
      .replace(/^GPU_HEADROOM_MIB=96 /m, "GPU_HEADROOM_MIB=48 ")
      .replace(/^HOST_POOL_MIB=44928 .*$/m, 'SERVE_ARGS="--host-pool-mib 44928"')
      .replace(/^MAX_SEQS=8$/m, "# demand is MAX_SEQS x MAX_MODEL_LEN\nMAX_SEQS=8    # seqs");
    expect(moved).not.toBe(frankText);
    repo.write(FRANK, moved);
    repo.stage();
    const run = kvgate(["check", "--staged", "--format", "json"], { cwd: repo.dir });
    expect(run.code).toBe(0);
    const doc = report(run);
    expect(doc.findings.map((f) => f.rule)).toEqual(["radiance/funding"]);
    expect(only(doc, "radiance/funding").data.tokens).toBe(180096);
  });

  // Contract section 10: data carries the numbers behind the message (MiB as numbers), not the
  // display strings ("44,928") the message shows. Regression test.
  test("knob/one-per-deploy data.changes carries MiB as numbers, not display strings", async () => {
    const { repo } = await pairedCommit();
    const doc = report(kvgate(["check", "--commit", "HEAD", "--format", "json"], { cwd: repo.dir }));
    expect(only(doc, "knob/one-per-deploy").data.changes).toEqual([
      { knob: "GPU_HEADROOM_MIB", before: 96, after: 48 },
      { knob: "HOST_POOL_MIB", before: 44928, after: 45952 },
    ]);
  });
});

describe("the TTM pin ledger", () => {
  test("HOST_POOL_MIB +1,024 without TTM_MIN_MIB: ttm/co-change and ttm/ledger with the numbers", async () => {
    const { repo } = await fleetRepo();
    editFrank(repo, { HOST_POOL_MIB: "45952" });
    repo.stage();
    const text = kvgate(["check", "--staged"], { cwd: repo.dir });
    expect(text.code).toBe(1);
    expect(text.stdout).toContain(
      `${FRANK}:${TTM_LINE} error ttm/ledger TTM_MIN_MIB 97,792 is below the pin ledger 99,839.68 MiB (2 × 45,952 pool + 0 PLE + 4,096 prefix + 2,048 statics + 16 slots (auto: 8 × (1 + 1)) × 111.98): set TTM_MIN_MIB=99840 and TTM_TARGET_MIB=100864 (or more)`,
    );
    expect(text.stdout).toContain(
      `${FRANK}:${TTM_LINE} error ttm/co-change the pin ledger moves 97,791.68 → 99,839.68 MiB by HOST_POOL_MIB 44,928 → 45,952: in the same commit, change TTM_MIN_MIB (97,792; ceil(ledger) is 99,840) and update ${GUARD}`,
    );
    expect(lastLine(text)).toBe("kvgate staged: 2 errors, 0 warnings, 1 notice; 8 seats sized on 4 cards; 0 unsized — REFUSED");

    const doc = report(kvgate(["check", "--staged", "--format", "json"], { cwd: repo.dir }));
    expect(openErrors(doc)).toEqual([
      ["ttm/co-change", TTM_LINE],
      ["ttm/ledger", TTM_LINE],
    ]);
    expect(only(doc, "ttm/ledger").data).toMatchObject({
      ledger_mib: 99839.68,
      required_mib: 99840,
      ttm_min_mib: 97792,
      ttm_target_mib: 98816,
      slack_mib: 1024,
    });
    expect(only(doc, "ttm/co-change").data).toMatchObject({
      ledger_before_mib: 97791.68,
      ledger_mib: 99839.68,
      ttm_min_mib: 97792,
      ttm_min_changed: false,
      missing_guards: [GUARD],
    });
    // the pool buys cache here (the expert floor was 2,172 MiB): funding moves, no pool-no-effect
    expect(only(doc, "radiance/funding").data).toMatchObject({ tokens: 193968, before: { tokens: 179408 } });
    expect(doc.findings.some((f) => f.rule === "radiance/pool-no-effect" || f.rule === "radiance/pool-step")).toBe(false);
  });

  test("the same raise with TTM_MIN_MIB and TTM_TARGET_MIB but without the guard: only ttm/co-change", async () => {
    const { repo } = await fleetRepo();
    editFrank(repo, POOL_STEP);
    repo.stage();
    const doc = report(kvgate(["check", "--staged", "--format", "json"], { cwd: repo.dir }));
    expect(openErrors(doc).map(([rule]) => rule)).toEqual(["ttm/co-change"]);
    expect(only(doc, "ttm/co-change").data).toMatchObject({ ttm_min_changed: true, missing_guards: [GUARD] });
    editFrank(repo, POOL_STEP);
    touchGuard(repo, "pool 45,952");
    repo.stage();
    const ok = kvgate(["check", "--staged", "--format", "json"], { cwd: repo.dir });
    expect(ok.code).toBe(0);
    expect(openErrors(report(ok))).toEqual([]);
  });

  test("the contract's ledger example gives 97,791.68 MiB (kvgate explain --format json)", async () => {
    const { repo } = await fleetRepo();
    const run = kvgate(["explain", "frank-archon", "--format", "json"], { cwd: repo.dir });
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    const doc = JSON.parse(run.stdout);
    expect(Object.keys(doc)).toEqual(["services", "gpus"]);
    const frank = doc.services.find((s: { name: string }) => s.name === "frank-archon");
    expect(frank).toMatchObject({
      name: "frank-archon",
      engine: "radiance",
      host: "fv-ml2",
      gpus: [0, 1],
      model: "frank/archon-moe",
      tp: 2,
    });
    expect(frank.ttm).toMatchObject({ ledger_mib: 97791.68, ttm_min_mib: 97792, ttm_target_mib: 98816, required_mib: 97792 });
    expect(frank.ttm.terms).toMatchObject({
      pool_mib: 89856,
      ple_table_mib: 0,
      prefix_cache_mib: 4096,
      statics_mib: 2048,
      slots: 16,
      slot_mib: 111.98,
      checkpoint_store_mib: 1791.68,
    });
    expect(frank.funding).toMatchObject({
      tokens: 179408,
      demand_tokens: 196608,
      funded: 179408 / 196608,
      budget_card: 0,
      expert_floor_mib: 2172,
    });
    expect(
      frank.funding.cards.map((c: { index: number; capacity_mib: number; elastic_mib: number; tokens: number }) => [
        c.index,
        c.capacity_mib,
        c.elastic_mib,
        c.tokens,
      ]),
    ).toEqual([
      [0, 24587, 14787, 179408],
      [1, 25291, 15491, 189424],
    ]);
  });

  test("kvgate explain prints the funding table and the ledger, before → after an uncommitted change", async () => {
    const { repo } = await fleetRepo();
    editFrank(repo, { GPU_HEADROOM_MIB: "48" });
    const run = kvgate(["explain", "frank-archon"], { cwd: repo.dir });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^ {2}GPU_HEADROOM_MIB +96 +48$/m);
    expect(run.stdout).toMatch(/^ {4}capacity +24,587 +24,635$/m);
    expect(run.stdout).toMatch(/^ {2}tokens +179,408 +180,096$/m);
    expect(run.stdout).toMatch(/^ {2}demand \(MAX_SEQS × MAX_MODEL_LEN\) +196,608 +196,608$/m);
    expect(run.stdout).toMatch(/^ {2}ledger +97,791\.68 +97,791\.68$/m);
    expect(run.stdout).toMatch(/^ {2}TTM_MIN_MIB needed \(ceil\) +97,792 +97,792$/m);
  });
});

describe("waivers", () => {
  const WAIVE = "Kvgate-Waive: knob/one-per-deploy paired resize agreed with Prime";

  async function pairedCommit(trailer: string) {
    const { repo, base } = await fleetRepo();
    editFrank(repo, { GPU_HEADROOM_MIB: "48", ...POOL_STEP });
    touchGuard(repo, "pool 45,952");
    repo.stage();
    const head = repo.commit(`headroom 48 and pool +1,024\n\n${trailer}`);
    return { repo, base, head };
  }

  test("a waived commit passes and shows the waiver with its reason, in text and JSON", async () => {
    const { repo, base, head } = await pairedCommit(WAIVE);
    const text = kvgate(["check", "--commit", "HEAD"], { cwd: repo.dir });
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(`${FRANK}:${HEADROOM_LINE} error (waived) knob/one-per-deploy 2 sizing knobs change in one deploy`);
    expect(text.stdout).toContain(`↳ waived in ${head.slice(0, 12)}: paired resize agreed with Prime`);
    expect(lastLine(text)).toBe("kvgate commit: 0 errors, 0 warnings, 1 notice, 1 waived; 8 seats sized on 4 cards; 0 unsized — PASS");

    const doc = report(kvgate(["check", "--commit", "HEAD", "--format", "json"], { cwd: repo.dir }));
    expect(doc).toMatchObject({ verdict: "pass", counts: { error: 0, waived: 1 } });
    const knob = only(doc, "knob/one-per-deploy");
    expect(knob).toMatchObject({ severity: "error", status: "waived", commit: head, line: HEADROOM_LINE });
    expect(knob.reason).toContain("paired resize agreed with Prime");

    // the commit's waiver holds when the commit is checked as part of a range
    const range = report(kvgate(["check", "--range", `${base}..${head}`, "--unit", "commit", "--format", "json"], { cwd: repo.dir }));
    expect(range.verdict).toBe("pass");
    expect(only(range, "knob/one-per-deploy").status).toBe("waived");
  });

  test("a waiver naming an unknown rule is an error (exit 1) and waives nothing", async () => {
    const { repo, head } = await pairedCommit("Kvgate-Waive: knob/one-per-deplyo paired resize agreed with Prime");
    const run = kvgate(["check", "--commit", "HEAD", "--format", "json"], { cwd: repo.dir });
    expect(run.code).toBe(1);
    const doc = report(run);
    expect(openErrors(doc)).toEqual([
      ["knob/one-per-deploy", HEADROOM_LINE],
      ["waiver/unknown-rule", null],
    ]);
    expect(only(doc, "waiver/unknown-rule")).toMatchObject({ severity: "error", commit: head, data: { rule: "knob/one-per-deplyo" } });
    expect(only(doc, "waiver/unknown-rule").message).toContain('"knob/one-per-deplyo" is not a kvgate rule');
  });

  test("an unknown-rule waiver on an otherwise clean commit still refuses it", async () => {
    const { repo } = await fleetRepo();
    repo.commit("nothing to waive\n\nKvgate-Waive: nope/rule because", { allowEmpty: true });
    const text = kvgate(["check", "--commit", "HEAD"], { cwd: repo.dir });
    expect(text.code).toBe(1);
    expect(text.stdout).toMatch(/error waiver\/unknown-rule Kvgate-Waive: "nope\/rule" is not a kvgate rule/);
    expect(lastLine(text)).toBe("kvgate commit: 1 error, 0 warnings, 0 notices — REFUSED");
  });

  test("a secret finding cannot be waived", async () => {
    const { repo } = await fleetRepo();
    repo.write("notes.txt", "AWS_ACCESS_KEY_ID=AKIAZ7XQ3MPL4VN2RT6W\n");
    repo.stage();
    repo.commit("notes\n\nKvgate-Waive: secret/aws-access-key-id rotating it tomorrow");
    const run = kvgate(["check", "--commit", "HEAD", "--format", "json"], { cwd: repo.dir });
    expect(run.code).toBe(1);
    const doc = report(run);
    expect(only(doc, "secret/aws-access-key-id")).toMatchObject({ status: "open", file: "notes.txt", line: 1 });
    expect(run.stdout).not.toContain("AKIAZ7XQ3MPL4VN2RT6W");
  });

  // Regression: the hint named `kvgate --help`, which lists commands, not rule ids.
  test("the waiver/unknown-rule hint names the command that lists rule ids (`kvgate rules`)", async () => {
    const { repo } = await fleetRepo();
    repo.commit("x\n\nKvgate-Waive: nope/rule because", { allowEmpty: true });
    const doc = report(kvgate(["check", "--commit", "HEAD", "--format", "json"], { cwd: repo.dir }));
    expect(only(doc, "waiver/unknown-rule").message).toContain("kvgate rules");
  });
});

describe("the example fleet's radiance endpoint", () => {
  test("check --all on a plain copy passes with the funding notice", async () => {
    const dir = await makeFolder();
    made.push(dir);
    for (const [path, text] of Object.entries(fleetFiles())) dir.write(path, text);
    const doc = report(kvgate(["check", "--all", "--format", "json"], { cwd: dir.dir }));
    expect(doc.verdict).toBe("pass");
    expect(only(doc, "radiance/funding").data).toMatchObject({ tokens: 179408, demand_tokens: 196608 });
  });
});

describe("the ledger facts file", () => {
  // Regression: deleting the facts file alone raised nothing, so funding silently stopped being checked.
  test("deleting it alone is reported (radiance/ledger-facts notice)", async () => {
    const { repo } = await fleetRepo();
    repo.remove("scripts/frank-archon.ledger.yaml");
    repo.stage();
    const doc = report(kvgate(["check", "--staged", "--format", "json"], { cwd: repo.dir }));
    expect(only(doc, "radiance/ledger-facts")).toMatchObject({
      severity: "notice",
      service: "frank-archon",
      data: { file: "scripts/frank-archon.ledger.yaml" },
    });
  });
});
