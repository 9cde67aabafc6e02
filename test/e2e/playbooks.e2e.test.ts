// Issue 6's done-means, end to end: playbooks added to a temp repo holding a copy of examples/fleet are
// read as deploys of the services they set, and the built CLI gates them. A setting's line in a
// playbook is the line of the task parameter that writes it (lineinfile's `line:`).
import { afterEach, describe, expect, test } from "vitest";
import { makeFolder, makeRepo, type TempFolder } from "../helpers/repo.js";
import { kvgate } from "../helpers/cli.js";
import {
  FRANK,
  GUARD,
  commitFleet,
  fleetFiles,
  lastLine,
  lineOf,
  only,
  openErrors,
  report,
  touchGuard,
  writeAll,
  fleetRepo as fleetRepoOf,
} from "./fixtures/fleet.js";

const made: TempFolder[] = [];
afterEach(async () => {
  for (const r of made.splice(0)) await r.cleanup();
});
const fleetRepo = () => fleetRepoOf(made);

/** A play of lineinfile tasks, one per `KEY=VALUE`, on `/opt/fleet/scripts/<service>.env` (via a play var). */
function lineinfilePlaybook(host: string, service: string, lines: string[]): string {
  const tasks = lines.flatMap((l) => [
    `    - name: ${service} ${l}`,
    "      ansible.builtin.lineinfile:",
    `        path: "{{ fleet_root }}/scripts/${service}.env"`,
    `        regexp: "^${l.split("=")[0]}="`,
    `        line: "${l}"`,
  ]);
  return [
    `# ${service} on ${host}`,
    `- name: Deploy ${service}`,
    `  hosts: ${host}`,
    "  vars:",
    "    fleet_root: /opt/fleet",
    "  tasks:",
    ...tasks,
    "",
  ].join("\n");
}

const RESIZE = "playbooks/fv-ml2-frank-resize.yaml";
const resize = (extra: string[] = []) =>
  lineinfilePlaybook("fv-ml2", "frank-archon", ["GPU_HEADROOM_MIB=48", "HOST_POOL_MIB=45952", ...extra]);

describe("a playbook that moves two knobs of a radiance endpoint", () => {
  // TTM_MIN_MIB/TTM_TARGET_MIB are derived (not knobs) and raised with the guard, so the knob rule is
  // the only error: the refusal is about the two knobs, not the ledger.
  const playbook = resize(["TTM_MIN_MIB=99840", "TTM_TARGET_MIB=100864"]);
  const headroomLine = lineOf(playbook, 'line: "GPU_HEADROOM_MIB=48"');
  const poolLine = lineOf(playbook, 'line: "HOST_POOL_MIB=45952"');

  test("staged: refused by knob/one-per-deploy at the playbook's line", async () => {
    const { repo } = await fleetRepo();
    repo.write(RESIZE, playbook);
    touchGuard(repo, "pool 45,952");
    repo.stage();
    const text = kvgate(["check", "--staged"], { cwd: repo.dir });
    expect(text.code).toBe(1);
    expect(text.stdout).toContain(
      `${RESIZE}:${headroomLine} error knob/one-per-deploy 2 sizing knobs change in one deploy (GPU_HEADROOM_MIB 96 → 48, HOST_POOL_MIB 44,928 → 45,952)`,
    );
    const doc = report(kvgate(["check", "--staged", "--format", "json"], { cwd: repo.dir }));
    expect(openErrors(doc)).toEqual([["knob/one-per-deploy", headroomLine]]);
    expect(only(doc, "knob/one-per-deploy")).toMatchObject({
      file: RESIZE,
      line: headroomLine,
      service: "frank-archon",
      data: { knobs: ["GPU_HEADROOM_MIB", "HOST_POOL_MIB"], engine: "radiance" },
    });
    // sized as deployed: the funding of the playbook's values
    expect(only(doc, "radiance/funding")).toMatchObject({ file: RESIZE, data: { tokens: 194656, before: { tokens: 179408 } } });
    expect(headroomLine).toBe(11);
    expect(poolLine).toBe(16);
  });

  test("committed: refused by --commit HEAD and by the range (--unit commit) at the playbook's line", async () => {
    const { repo, base } = await fleetRepo();
    repo.write(RESIZE, playbook);
    touchGuard(repo, "pool 45,952");
    repo.stage();
    const head = repo.commit("resize frank-archon by playbook");
    const doc = report(kvgate(["check", "--commit", "HEAD", "--format", "json"], { cwd: repo.dir }));
    expect(doc.verdict).toBe("fail");
    expect(openErrors(doc)).toEqual([["knob/one-per-deploy", headroomLine]]);
    expect(only(doc, "knob/one-per-deploy")).toMatchObject({ file: RESIZE, commit: head, service: "frank-archon" });
    const range = kvgate(["check", "--range", `${base}..${head}`, "--unit", "commit", "--format", "json"], { cwd: repo.dir });
    expect(range.code).toBe(1);
    expect(openErrors(report(range))).toEqual([["knob/one-per-deploy", headroomLine]]);
  });

  test("without the TTM lines the playbook also fails the ledger, at the playbook", async () => {
    const { repo } = await fleetRepo();
    const bare = resize();
    repo.write(RESIZE, bare);
    repo.stage();
    const run = kvgate(["check", "--staged", "--format", "json"], { cwd: repo.dir });
    expect(run.code).toBe(1);
    const doc = report(run);
    expect(openErrors(doc).map(([rule]) => rule)).toEqual(["knob/one-per-deploy", "ttm/co-change", "ttm/ledger"]);
    expect(only(doc, "ttm/ledger")).toMatchObject({
      file: RESIZE,
      data: { ledger_mib: 99839.68, required_mib: 99840, ttm_min_mib: 97792 },
    });
    expect(only(doc, "ttm/co-change").data).toMatchObject({ missing_guards: [GUARD], ttm_min_changed: false });
  });

  test("one knob per playbook passes, with drift warned at the playbook's line", async () => {
    const { repo } = await fleetRepo();
    const one = lineinfilePlaybook("fv-ml2", "frank-archon", ["GPU_HEADROOM_MIB=48"]);
    repo.write(RESIZE, one);
    repo.stage();
    const text = kvgate(["check", "--staged"], { cwd: repo.dir });
    expect(text.code).toBe(0);
    const line = lineOf(one, 'line: "GPU_HEADROOM_MIB=48"');
    expect(text.stdout).toContain(
      `${RESIZE}:${line} warning playbook/drift ${RESIZE} deploys GPU_HEADROOM_MIB=48 to frank-archon, but ${FRANK} has 96: commit the deployed value in ${FRANK}, or change the playbook`,
    );
    expect(lastLine(text)).toBe("kvgate staged: 0 errors, 1 warning, 1 notice; 8 seats sized on 4 cards; 0 unsized — PASS");
  });
});

describe("a playbook that raises a vLLM seat's context", () => {
  // intern-decision (Qwen3-8B, 144 KiB/token) is pinned 6 GiB for 32,768 tokens; at its native 40,960
  // it needs ceil(1.25 × 40,960 × 147,456 B / 0.5 GiB) × 0.5 GiB = 7.5 GiB = 8,053,063,680 B.
  const PB = "playbooks/intern-ctx.yaml";

  test("lineinfile without the KV pin: refused by kv/covers-context at the playbook's line", async () => {
    const { repo } = await fleetRepo();
    const playbook = lineinfilePlaybook("fv-ml1", "intern-decision", ["MAX_MODEL_LEN=40960"]);
    const line = lineOf(playbook, 'line: "MAX_MODEL_LEN=40960"');
    repo.write(PB, playbook);
    repo.stage();
    const text = kvgate(["check", "--staged"], { cwd: repo.dir });
    expect(text.code).toBe(1);
    expect(text.stdout).toContain(
      `${PB}:${line} error kv/covers-context intern-decision: KV pin 6 GiB < required 7.5 GiB = ceil(1.25 × 40,960 tokens × 144 KiB / 0.5 GiB) × 0.5 GiB; a pin of 7.5 GiB does not fit beside its neighbours (the card's spare, or a neighbour's boot), so lower the context: set MAX_MODEL_LEN=34816`,
    );
    const doc = report(kvgate(["check", "--staged", "--format", "json"], { cwd: repo.dir }));
    expect(openErrors(doc)).toEqual([["kv/covers-context", line]]);
    const kv = only(doc, "kv/covers-context");
    expect(kv).toMatchObject({ file: PB, line, service: "intern-decision", status: "open" });
    expect(kv.data).toMatchObject({
      required_bytes: 8053063680,
      pinned_bytes: 6442450944,
      bytes_per_token: 147456,
      max_model_len: 40960,
      factor: 1.25,
    });
    expect(only(doc, "playbook/drift").data).toMatchObject({
      key: "MAX_MODEL_LEN",
      playbook_value: "40960",
      committed_value: "32768",
      env_file: "scripts/intern-decision.env",
    });
  });

  test("committed, the same playbook is refused by --commit HEAD", async () => {
    const { repo } = await fleetRepo();
    const playbook = lineinfilePlaybook("fv-ml1", "intern-decision", ["MAX_MODEL_LEN=40960"]);
    repo.write(PB, playbook);
    repo.stage();
    const head = repo.commit("intern-decision to 40,960");
    const run = kvgate(["check", "--commit", "HEAD", "--format", "json"], { cwd: repo.dir });
    expect(run.code).toBe(1);
    expect(only(report(run), "kv/covers-context")).toMatchObject({
      file: PB,
      line: lineOf(playbook, 'line: "MAX_MODEL_LEN=40960"'),
      commit: head,
      data: { required_bytes: 8053063680 },
    });
  });

  test("with the KV pin raised in the same playbook the KV passes (drift warned); gen-small then cannot boot last", async () => {
    const { repo } = await fleetRepo();
    repo.write(PB, lineinfilePlaybook("fv-ml1", "intern-decision", ["MAX_MODEL_LEN=40960", "KV_CACHE_MEMORY_BYTES=8053063680"]));
    repo.stage();
    const run = kvgate(["check", "--staged", "--format", "json"], { cwd: repo.dir });
    // 1.5 GiB more on gpu 1 leaves gen-small 96 − 71.6 − 0.5 GiB (its own CUDA context) = 23.9 GiB < 0.25 × 96 GiB.
    expect(run.code).toBe(1);
    const doc = report(run);
    expect(openErrors(doc).map(([rule]) => rule)).toEqual(["kv/boot-check"]);
    expect(only(doc, "kv/boot-check")).toMatchObject({
      service: "gen-small",
      data: { asked_bytes: 24 * 1024 ** 3, context_overhead_bytes: 512 * 1024 ** 2 },
    });
    expect(doc.findings.filter((f) => f.rule === "playbook/drift").map((f) => f.data.key)).toEqual([
      "MAX_MODEL_LEN",
      "KV_CACHE_MEMORY_BYTES",
    ]);
  });
});

describe("playbook/drift", () => {
  test("a playbook value that differs from the committed env file is a warning with both values", async () => {
    const { repo } = await fleetRepo();
    const playbook = lineinfilePlaybook("fv-ml1", "coder", ["GPU_MEMORY_UTILIZATION=0.40"]);
    repo.write("playbooks/coder-util.yaml", playbook);
    repo.stage();
    const run = kvgate(["check", "--staged", "--format", "json"], { cwd: repo.dir });
    expect(run.code).toBe(0);
    const drift = only(report(run), "playbook/drift");
    expect(drift).toMatchObject({
      severity: "warning",
      file: "playbooks/coder-util.yaml",
      line: lineOf(playbook, "line:"),
      service: "coder",
    });
    expect(drift.data).toMatchObject({
      key: "GPU_MEMORY_UTILIZATION",
      playbook_value: "0.40",
      committed_value: "0.45",
      env_file: "scripts/coder.env",
    });
    expect(kvgate(["check", "--staged", "--fail-on", "warning"], { cwd: repo.dir }).code).toBe(1);
  });

  test("a playbook that writes what the env file already holds is no drift", async () => {
    const { repo } = await fleetRepo();
    repo.write("playbooks/coder-util.yaml", lineinfilePlaybook("fv-ml1", "coder", ["GPU_MEMORY_UTILIZATION=0.45"]));
    repo.stage();
    const run = kvgate(["check", "--staged", "--format", "json"], { cwd: repo.dir });
    expect(run.code).toBe(0);
    expect(report(run).findings.filter((f) => f.rule === "playbook/drift")).toEqual([]);
  });
});

describe("playbook/parse", () => {
  // line 7 is indented one column short of the mapping it belongs to
  const BROKEN = [
    "- name: broken",
    "  hosts: fv-ml1",
    "  tasks:",
    "    - name: voices context",
    "      lineinfile:",
    "        path: /opt/fleet/scripts/voices.env",
    '       line: "MAX_MODEL_LEN=8192"',
    "",
  ].join("\n");

  test("broken YAML in a playbook is an error with its line", async () => {
    const { repo } = await fleetRepo();
    repo.write("playbooks/broken.yaml", BROKEN);
    repo.stage();
    const text = kvgate(["check", "--staged"], { cwd: repo.dir });
    expect(text.code).toBe(1);
    expect(text.stdout).toMatch(
      /^ {2}playbooks\/broken\.yaml:7 error playbook\/parse playbooks\/broken\.yaml is not valid YAML: .*at line 7/m,
    );
    const doc = report(kvgate(["check", "--staged", "--format", "json"], { cwd: repo.dir }));
    expect(openErrors(doc)).toEqual([["playbook/parse", 7]]);
    expect(only(doc, "playbook/parse")).toMatchObject({ file: "playbooks/broken.yaml", data: { playbook: "playbooks/broken.yaml" } });
  });

  test("a vars file (a mapping at the top) under playbooks/ is not an error", async () => {
    const { repo } = await fleetRepo();
    repo.write("playbooks/vars/fv-ml2.yaml", "# fv-ml2 sizing\nfrank_headroom: 48\nseats: [frank-archon]\n");
    repo.stage();
    const run = kvgate(["check", "--staged"], { cwd: repo.dir });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe("kvgate staged: pass (1 file checked, no findings); 8 seats sized on 4 cards; 0 unsized\n");
  });

  // Regression: the yaml library's message ends in ":" before its code excerpt; kept, it read
  // "…at line 7, column 1:; Ansible cannot run it as written".
  test("the playbook/parse message has no dangling ':' before '; Ansible cannot run it'", async () => {
    const { repo } = await fleetRepo();
    repo.write("playbooks/broken.yaml", BROKEN);
    repo.stage();
    const doc = report(kvgate(["check", "--staged", "--format", "json"], { cwd: repo.dir }));
    expect(only(doc, "playbook/parse").message).not.toMatch(/:;/);
  });
});

describe("the example fleet passes its own gate", () => {
  test("kvgate check --all --repo <copy of examples/fleet> exits 0, reading the rebalance playbook", async () => {
    const copy = await makeFolder();
    const elsewhere = await makeFolder();
    made.push(copy, elsewhere);
    writeAll(copy, fleetFiles());
    const text = kvgate(["check", "--all", "--repo", copy.dir], { cwd: elsewhere.dir });
    expect(text.stderr).toBe("");
    expect(text.code).toBe(0);
    expect(lastLine(text)).toMatch(/^kvgate all: 0 errors, 0 warnings, .* — PASS$/);
    const doc = report(kvgate(["check", "--all", "--repo", copy.dir, "--format", "json"], { cwd: elsewhere.dir }));
    expect(doc).toMatchObject({ mode: "all", verdict: "pass", counts: { error: 0, warning: 0 } });
    // the playbook is read: its one vault lookup is reported unresolved, at its line
    const rebalance = "playbooks/fv-ml1-rebalance-20261005.yaml";
    expect(only(doc, "playbook/unresolved")).toMatchObject({
      file: rebalance,
      service: "coder",
      line: lineOf(fleetFiles()[rebalance] as string, "HF_TOKEN:"),
    });
  });

  test("committing the rebalance playbook on top of the fleet passes (--commit HEAD)", async () => {
    const repo = await makeRepo();
    made.push(repo);
    commitFleet(repo, { without: ["playbooks"] });
    writeAll(repo, Object.fromEntries(Object.entries(fleetFiles()).filter(([p]) => p.startsWith("playbooks/"))));
    repo.stage();
    repo.commit("fv-ml1 rebalance playbook");
    const run = kvgate(["check", "--commit", "HEAD", "--format", "json"], { cwd: repo.dir });
    expect(run.code).toBe(0);
    const doc = report(run);
    expect(doc.counts).toMatchObject({ error: 0, warning: 0 });
    expect(doc.findings.map((f) => f.rule)).toEqual(["playbook/unresolved"]);
  });
});

describe("a deployed command that cannot be read", () => {
  // Regression: a container command with an unbalanced quote replaced the env file's flags with
  // nothing and the change passed; it must be an error.
  test("an unbalanced quote in docker_container command is an error, not an empty command", async () => {
    const { repo } = await fleetRepo();
    repo.write(
      "playbooks/bad.yaml",
      [
        "- hosts: fv-ml1",
        "  tasks:",
        "    - community.docker.docker_container:",
        "        name: voices",
        '        command: "serve Qwen/Qwen3-8B --max-model-len 999999 --x \\"unbalanced"',
        "",
      ].join("\n"),
    );
    repo.stage();
    const run = kvgate(["check", "--staged", "--format", "json"], { cwd: repo.dir });
    expect(run.code).toBe(1);
    const errors = openErrors(report(run));
    expect(errors.length).toBeGreaterThan(0);
    expect(JSON.stringify(report(run).findings)).toMatch(/cannot split into words/);
  });
});
