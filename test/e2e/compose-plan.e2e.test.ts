// Issue 17 item 3 end to end: explain and plan read the fleet as the compose file deploys it. A temp
// repository holding examples/compose, the built CLI as a process: explain shows each seat's values at
// the compose lines; plan on an over-full fv-ml3 card names the compose (or env file) line to change,
// and that edit, applied to the files as written, passes `check --all`.
import { afterEach, describe, expect, test } from "vitest";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { makeRepo, type TempRepo } from "../helpers/repo.js";
import { ROOT, kvgate } from "../helpers/cli.js";

const EXAMPLE = join(ROOT, "examples", "compose");
const CF = "hosts/fv-ml3/compose.yaml";
const GiB = 2 ** 30;

const made: TempRepo[] = [];
afterEach(async () => {
  for (const r of made.splice(0)) await r.cleanup();
});

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? filesUnder(join(dir, e.name)) : [join(dir, e.name)]));
}
const example = (path: string): string => readFileSync(join(EXAMPLE, path), "utf8");
const lineOf = (text: string, needle: string): number => text.split("\n").findIndex((l) => l.includes(needle)) + 1;

async function composeRepo(changes: Record<string, string> = {}): Promise<TempRepo> {
  const repo = await makeRepo();
  made.push(repo);
  for (const f of filesUnder(EXAMPLE)) repo.write(relative(EXAMPLE, f), readFileSync(f));
  for (const [p, text] of Object.entries(changes)) repo.write(p, text);
  repo.stage();
  repo.commit("the compose fleet");
  return repo;
}

/** A 12 GiB trainer pinned to card 0, and voices moved onto card 0 in both its files: card 0 holds chat
 *  23.3 + voices 17 + trainer 12 = 52.3 GiB of 47 GiB. */
function overFull(): Record<string, string> {
  return {
    "kvgate.yaml": example("kvgate.yaml").replace(
      "vllm: {",
      "  tenants:\n    - { name: trainer, host: fv-ml3, gpu: 0, vram: 12GiB, pin: true }\nvllm: {",
    ),
    [CF]: example(CF).replace('- device_ids: ["1"]', '- device_ids: ["0"]'),
    "scripts/voices.env": example("scripts/voices.env").replace("GPU=1", "GPU=0"),
  };
}

/** Applies each `set …` of a plan move to the line it names: `device_ids: ["N"] at F:L` or `KEY=N at F:L`. */
function applyMove(repo: TempRepo, how: string): number {
  let applied = 0;
  for (const m of how.matchAll(/(?:device_ids: \["(\d+)"\]|(\w+)=(\d+)) at ([^\s:,()]+):(\d+)/g)) {
    const [, ids, key, value, file, line] = m as unknown as [
      string,
      string | undefined,
      string | undefined,
      string | undefined,
      string,
      string,
    ];
    const lines = readFileSync(join(repo.dir, file), "utf8").split("\n");
    const i = Number(line) - 1;
    const before = lines[i] as string;
    lines[i] =
      ids !== undefined
        ? before.replace(/device_ids: \[[^\]]*\]/, `device_ids: ["${ids}"]`)
        : before.replace(new RegExp(`${key}([=:] ?)["']?\\w+["']?`), `${key}$1${value}`);
    expect(lines[i], `${file}:${line} holds what the move names`).not.toBe(before);
    repo.write(file, lines.join("\n"));
    applied++;
  }
  return applied;
}

/** The over-full fleet with chat's GPU reservation taken out of the compose file. */
function withoutChatReservation(): Record<string, string> {
  const changes = overFull();
  changes[CF] = (changes[CF] as string).replace(
    / {4}deploy:\n {6}resources:\n {8}reservations:\n {10}devices:\n {12}- \{ driver: nvidia, device_ids: \["0"\], capabilities: \[gpu\] \}\n/,
    "",
  );
  expect(changes[CF]).not.toContain("capabilities: [gpu]");
  return changes;
}

function checkAll(repo: TempRepo): { code: number | null; findings: { rule: string; severity: string; file: string; line: number }[] } {
  const run = kvgate(["check", "--all", "--format", "json"], { cwd: repo.dir });
  return {
    code: run.code,
    findings: (JSON.parse(run.stdout) as { findings: { rule: string; severity: string; file: string; line: number }[] }).findings,
  };
}

describe("explain shows the compose seats as deployed", () => {
  test("each setting at its compose line, the cards at the device_ids line, and the compose service named", async () => {
    const repo = await composeRepo();
    const cf = example(CF);
    const run = kvgate(["explain", "--format", "json"], { cwd: repo.dir });
    expect(run.code, run.stderr).toBe(0);
    const services = (
      JSON.parse(run.stdout) as {
        services: {
          name: string;
          gpus: number[];
          gpus_from: { file: string; line: number } | null;
          deployed_by: unknown[];
          settings: Record<string, { value: unknown; file: string; line: number }>;
        }[];
      }
    ).services;
    expect(services.map((s) => s.name)).toEqual(["chat", "voices"]);
    const chat = services.find((s) => s.name === "chat")!;
    expect(chat.deployed_by).toEqual([{ file: CF, line: lineOf(cf, "  chat:"), compose_service: "chat" }]);
    expect(chat.gpus).toEqual([0]);
    expect(chat.gpus_from).toMatchObject({ file: CF, line: lineOf(cf, 'device_ids: ["0"]') });
    expect(chat.settings.max_model_len).toMatchObject({ value: 32768, file: CF, line: lineOf(cf, "--max-model-len") });
    expect(chat.settings.kv_pin).toMatchObject({ value: 6 * GiB, file: CF, line: lineOf(cf, "--kv-cache-memory-bytes") });
    const voices = services.find((s) => s.name === "voices")!;
    // The folded command string: every flag is on the line of its word.
    expect(voices.settings.max_model_len).toMatchObject({ value: 40960, file: CF, line: lineOf(cf, "--max-model-len 40960") });
    expect(voices.gpus_from).toMatchObject({ file: CF, line: lineOf(cf, 'device_ids: ["1"]') });
    // The compose service's key names the seat it deploys.
    const text = kvgate(["explain", "vllm-voices"], { cwd: repo.dir, env: { NO_COLOR: "1" } }).stdout;
    expect(text.startsWith("voices  scripts/voices.env  vllm")).toBe(true);
    expect(text).toContain(`gpu 1 (${CF}:${lineOf(cf, 'device_ids: ["1"]')})`);
    expect(text).toContain(`deployed by ${CF}:${lineOf(cf, "  vllm-voices:")} (compose service vllm-voices)`);
    expect(text).toMatch(new RegExp(`max_model_len +40960 +${CF}:${lineOf(cf, "--max-model-len 40960")} --max-model-len`));
  });

  test("a compose seat without an env file is shown from the compose file, saying the env file is not there", async () => {
    const cf =
      example(CF) +
      [
        "",
        "  embed:",
        "    image: vllm/vllm-openai:v0.10.2",
        '    command: ["Qwen/Qwen3-4B", "--max-model-len", "8192", "--gpu-memory-utilization", "0.2"]',
        "",
      ].join("\n");
    const repo = await composeRepo({ [CF]: cf });
    const run = kvgate(["explain", "embed"], { cwd: repo.dir, env: { NO_COLOR: "1" } });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.split("\n")[0]).toMatch(/^embed {2}\(no scripts\/embed\.env\) {2}vllm \(by image/);
    expect(run.stdout).toContain(`deployed by ${CF}:${lineOf(cf, "  embed:")} (compose service embed)`);
    expect(run.stdout).toMatch(new RegExp(`max_model_len +8192 +${CF}:${lineOf(cf, '"8192"')} --max-model-len`));
  });

  test("a compose file that is not valid YAML: explain says so on stderr and shows the env file's values", async () => {
    const repo = await composeRepo({ [CF]: example(CF).replace("  chat:", "  chat: [oops") });
    const run = kvgate(["explain", "chat", "--format", "json"], { cwd: repo.dir });
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(
      new RegExp(
        // The line js-yaml stops at (the unclosed flow list runs into the next line); one error, as compose gives one.
        `^error compose/parse: ${CF}:15: ${CF} is not valid YAML: .*; kvgate cannot size what it deploys until it parses\nnote: explain and plan show what the env files say instead of what ${CF} deploys\n$`,
      ),
    );
    const chat = (
      JSON.parse(run.stdout) as { services: { deployed_by: unknown[]; settings: Record<string, { file: string; line: number }> }[] }
    ).services[0];
    expect(chat?.deployed_by).toEqual([]);
    expect(chat?.settings.max_model_len).toMatchObject({ file: "scripts/chat.env", line: 7 });
    const plan = kvgate(["plan"], { cwd: repo.dir });
    expect([plan.code, plan.stderr]).toEqual([0, run.stderr]);
  });

  test("a value the compose file deploys over the env file is what explain shows (the env file says 32768, compose 16384)", async () => {
    const repo = await composeRepo({ [CF]: example(CF).replace('      - "32768"', '      - "16384"') });
    const json = JSON.parse(kvgate(["explain", "chat", "--format", "json"], { cwd: repo.dir }).stdout) as {
      services: { settings: Record<string, { value: unknown; file: string }> }[];
    };
    expect(json.services[0]?.settings.max_model_len).toMatchObject({ value: 16384, file: CF });
  });
});

describe("plan on an over-full fv-ml3 card names the compose line", () => {
  test("the move is the device_ids line (and the env file's GPU line), and applying it passes check --all", async () => {
    const changes = overFull();
    const repo = await composeRepo(changes);
    const cf = changes[CF] as string;
    const before = checkAll(repo);
    expect(before.code).toBe(1);
    expect(before.findings.filter((f) => f.rule === "gpu/fits").map((f) => f.severity)).toEqual(["error"]);
    const json = JSON.parse(kvgate(["plan", "--host", "fv-ml3", "--format", "json"], { cwd: repo.dir }).stdout) as {
      moves: unknown[];
      worst_spare_bytes: number;
    };
    // Card 0 keeps voices + trainer (29 GiB of 47: 18 GiB spare), chat goes to card 1 (23.7 GiB spare):
    // better than voices to card 1 (card 0 keeps 35.3 GiB: 11.7 GiB spare).
    expect(json.moves).toEqual([{ name: "chat", kind: "seat", from: 0, to: 1 }]);
    const text = kvgate(["plan", "--host", "fv-ml3"], { cwd: repo.dir, env: { NO_COLOR: "1" } });
    expect(text.code, text.stderr).toBe(0);
    const move = text.stdout.split("\n").find((l) => l.includes("chat: gpu 0 → 1")) ?? "";
    expect(move).toContain(
      `set device_ids: ["1"] at ${CF}:${lineOf(cf, 'device_ids: ["0"]')} (and GPU=1 at scripts/chat.env:4, which it deploys)`,
    );
    expect(applyMove(repo, move)).toBe(2);
    const after = checkAll(repo);
    expect(
      after.findings.filter((f) => f.severity !== "notice"),
      JSON.stringify(after.findings),
    ).toEqual([]);
    expect(after.code).toBe(0);
    // The plan now has nothing to move.
    expect(kvgate(["plan", "--host", "fv-ml3"], { cwd: repo.dir, env: { NO_COLOR: "1" } }).stdout).toContain("no moves");
  });

  test("a compose service without a GPU line takes it from its env_file: the move is the env file's GPU line", async () => {
    const changes = withoutChatReservation();
    // chat reserves no card in compose: the nvidia runtime's NVIDIA_VISIBLE_DEVICES comes from chat.env.
    changes["scripts/chat.env"] = example("scripts/chat.env").replace("GPU=0", "GPU=0\nNVIDIA_VISIBLE_DEVICES=0");
    const repo = await composeRepo(changes);
    expect(checkAll(repo).code).toBe(1);
    const text = kvgate(["plan", "--host", "fv-ml3"], { cwd: repo.dir, env: { NO_COLOR: "1" } }).stdout;
    const move = text.split("\n").find((l) => l.includes("chat: gpu 0 → 1")) ?? "";
    expect(move).toContain("set NVIDIA_VISIBLE_DEVICES=1 at scripts/chat.env:5 (and GPU=1 at scripts/chat.env:4, which it deploys)");
    expect(applyMove(repo, move)).toBe(2);
    const after = checkAll(repo);
    expect(
      after.findings.filter((f) => f.severity !== "notice"),
      JSON.stringify(after.findings),
    ).toEqual([]);
    expect(after.code).toBe(0);
  });

  test("a compose service that names no card at all: the move is the env file's GPU line", async () => {
    const repo = await composeRepo(withoutChatReservation());
    expect(checkAll(repo).code).toBe(1);
    const text = kvgate(["plan", "--host", "fv-ml3"], { cwd: repo.dir, env: { NO_COLOR: "1" } }).stdout;
    const move = text.split("\n").find((l) => l.includes("chat: gpu 0 → 1")) ?? "";
    expect(move).toMatch(/set GPU=1 at scripts\/chat\.env:4$/);
    expect(applyMove(repo, move)).toBe(1);
    const after = checkAll(repo);
    expect(
      after.findings.filter((f) => f.severity !== "notice"),
      JSON.stringify(after.findings),
    ).toEqual([]);
    expect(after.code).toBe(0);
  });
});
