// Issue 24's done-means for the two other layouts an operator writes a host in, not kvgate's: a
// compose-only host (one docker-compose.yml, no env file, the GPUs as device reservations) and a
// systemd-unit host (one unit per seat: a `docker run` of the vLLM image, and a venv's `vllm serve`).
// Each is set up only with `kvgate init --from-host` (the host's nvidia-smi output), refused for
// exactly its sizing mistake (numbers checked) and a pasted key, with advice that vLLM 0.8.5 can take
// in the file's own spelling; `check --fix` says the index still holds the refused value, and after
// the key is removed and the files are added, the commit passes. Real git, the built CLI, init's hooks.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { makeRepo, type TempRepo } from "../helpers/repo.js";
import { kvgate, type JsonFinding } from "../helpers/cli.js";
import { gitCommit } from "../helpers/install.js";
import { hostCsv } from "../helpers/init-repo.js";
import { FAKE } from "../secrets/helpers.js";

const made: TempRepo[] = [];
afterAll(async () => {
  for (const r of made.splice(0)) await r.cleanup();
});

type Found = JsonFinding;
interface Doc {
  verdict: string;
  findings: Found[];
  coverage: unknown;
}

const gpu = (id: number) =>
  [
    "    deploy:",
    "      resources:",
    "        reservations:",
    "          devices:",
    "            - driver: nvidia",
    `              device_ids: ["${id}"]`,
    "              capabilities: [gpu]",
  ].join("\n");

const COMPOSE = {
  // Card 0: Qwen3-4B on vLLM 0.8.5 at 0.45 of the card: too little KV for its 40,960 tokens. Card 1:
  // Qwen3-1.7B on 0.10.2, pinned right, in compose's list form. A UI with `changeme` placeholders.
  "gpu-box/docker-compose.yml": [
    "# gpu-box: two 4090s, brought up with docker compose up -d",
    "services:",
    "  chat:",
    "    image: vllm/vllm-openai:v0.8.5",
    `    command: --model Qwen/Qwen3-4B --max-model-len 40960 --gpu-memory-utilization 0.45 --override-generation-config '{"max_new_tokens":4096}'`,
    "    environment:",
    `      HUGGING_FACE_HUB_TOKEN: ${FAKE.hf}`,
    '    ports: ["8000:8000"]',
    gpu(0),
    "  coder:",
    "    image: vllm/vllm-openai:v0.10.2",
    `    command: ["--model", "Qwen/Qwen3-1.7B", "--max-model-len", "32768", "--kv-cache-memory-bytes", "4831838208", "--override-generation-config", '{"max_new_tokens":4096}']`,
    gpu(1),
    "  webui:",
    "    image: ghcr.io/open-webui/open-webui:0.6.5",
    "    environment:",
    "      OPENAI_API_KEY: changeme",
    "      WEBUI_SECRET_KEY: changeme",
    "",
  ].join("\n"),
};

const SYSTEMD = {
  // Card 0: the same mistake, in a unit's docker run (the flags continued over lines).
  "ops/systemd/vllm-chat.service": [
    "[Unit]",
    "Description=vLLM chat (first 4090)",
    "After=docker.service",
    "Requires=docker.service",
    "",
    "[Service]",
    "Restart=always",
    "ExecStartPre=-/usr/bin/docker rm -f vllm-chat",
    "ExecStart=/usr/bin/docker run --rm --name vllm-chat --gpus device=0 -p 8000:8000 \\",
    `  -e HUGGING_FACE_HUB_TOKEN=${FAKE.hf} \\`,
    "  vllm/vllm-openai:v0.8.5 \\",
    "  --model Qwen/Qwen3-4B --max-model-len 40960 --gpu-memory-utilization 0.45 \\",
    `  --override-generation-config '{"max_new_tokens":4096}'`,
    "ExecStop=/usr/bin/docker stop vllm-chat",
    "",
    "[Install]",
    "WantedBy=multi-user.target",
    "",
  ].join("\n"),
  // Card 1: vLLM from a venv, no image: sized at the version kvgate assumes, and pinned right.
  "ops/systemd/vllm-embed.service": [
    "[Unit]",
    "Description=vLLM embed (second 4090), from the venv",
    "After=network-online.target",
    "",
    "[Service]",
    "User=vllm",
    "Environment=CUDA_VISIBLE_DEVICES=1",
    `ExecStart=/opt/vllm/bin/vllm serve Qwen/Qwen3-1.7B --port 8001 --max-model-len 32768 --kv-cache-memory-bytes 4831838208 --override-generation-config '{"max_new_tokens":1024}'`,
    "Restart=on-failure",
    "",
    "[Install]",
    "WantedBy=multi-user.target",
    "",
  ].join("\n"),
  "ops/systemd/node-exporter.service": "[Service]\nExecStart=/usr/local/bin/node_exporter\n",
};

async function hostRepo(files: Record<string, string>): Promise<TempRepo> {
  const r = await makeRepo();
  made.push(r);
  for (const [p, t] of Object.entries(files)) r.write(p, t);
  r.stage();
  r.commit("the host as it runs today");
  return r;
}

function checkAll(r: TempRepo): Doc {
  return JSON.parse(kvgate(["check", "--all", "--format", "json"], { cwd: r.dir }).stdout) as Doc;
}

/** init from the host's cards, the first commit refused with exactly `expected`; returns the findings. */
function initAndRefuse(r: TempRepo, expected: (string | null)[][], coverage: unknown): Found[] {
  const init = kvgate(["init", "--from-host", hostCsv(2, "NVIDIA GeForce RTX 4090", 24564), "--host", "gpu-box"], { cwd: r.dir });
  expect(init.code, init.stdout + init.stderr).toBe(0);
  expect(init.stdout).toContain("wrote     kvgate.yaml (2 seats found; 2 cards of gpu-box from");
  r.stage();
  const first = gitCommit(r, "turn the gate on");
  expect(first.code, first.out).not.toBe(0);
  expect(first.out).toContain("REFUSED");
  const doc = checkAll(r);
  const open = doc.findings.filter((f) => f.status === "open" && f.severity === "error");
  expect(open.map((f) => [f.rule, f.service, f.file]).sort()).toEqual(expected.sort());
  expect(doc.coverage).toEqual(coverage);
  // No advice names a key vLLM never reads from these files, or a pin 0.8.5 does not have.
  expect(JSON.stringify(doc)).not.toContain("KV_CACHE_MEMORY_BYTES");
  return open;
}

/** The chat seat's finding: 0.45 × 23.99 GiB leaves 1.94 GiB of KV (overhead 1.35 GiB as vLLM 0.8.5 profiles it), 7.5 GiB needed; 0.69 leaves it. */
function expectUtilizationAdvice(open: Found[], file: string, line: number): void {
  const chat = open.find((f) => f.rule === "kv/covers-context");
  expect(chat?.message).toContain("vLLM 0.8.5 has none: --kv-cache-memory-bytes came in 0.10.2");
  expect(chat?.message).toContain("an estimated 1.94 GiB (0.45 × 23.99 GiB − weights 7.5 GiB − overhead 1.35 GiB) < required 7.5 GiB");
  expect(chat?.message).toContain("set --gpu-memory-utilization 0.69, which leaves the KV it needs");
  expect(chat?.data.fix).toMatchObject({ file, line, key: "--gpu-memory-utilization", value: "0.69" });
  expect(chat?.data).toMatchObject({ estimated_bytes: expect.any(Number), required_bytes: 7.5 * 2 ** 30 });
}

/** check --fix, then the key removed, then git add: the commit passes and records it. */
function fixAddCommit(r: TempRepo, file: string, keyLine: RegExp): void {
  const fix = kvgate(["check", "--staged", "--fix"], { cwd: r.dir });
  expect(fix.stdout).toContain(`fixed ${file}:`);
  expect(fix.stdout).toContain("--gpu-memory-utilization 0.45 → 0.69 (kv/covers-context)");
  // The fix is in the working tree; the index still holds the refused value, and --fix ends saying so.
  expect(fix.stdout.trimEnd().split("\n").at(-1)).toBe(
    `kvgate --fix: the index still holds the refused value of ${file}: a commit records what is staged, so run git add ${file}`,
  );
  const refusedAgain = gitCommit(r, "without git add");
  expect(refusedAgain.code, refusedAgain.out).not.toBe(0);
  const text = readFileSync(join(r.dir, file), "utf8");
  expect(text).toContain("--gpu-memory-utilization 0.69");
  r.write(file, text.replace(keyLine, ""));
  r.stage();
  const second = gitCommit(r, "turn the gate on, the host sized");
  expect(second.code, second.out).toBe(0);
  expect(r.git("log", "-1", "--format=%B")).toContain("Kvgate-Verdict: pass");
}

describe("an operator's own host, set up only with kvgate init --from-host", () => {
  test("a compose-only host: refused for its utilization and its key; check --fix, git add: it passes", async () => {
    const r = await hostRepo(COMPOSE);
    const CF = "gpu-box/docker-compose.yml";
    const open = initAndRefuse(
      r,
      [
        ["kv/covers-context", "chat", CF],
        ["secret/huggingface-token", null, CF],
      ],
      { sized: 2, cards: 2, not_engines: ["webui"], unsized: [] },
    );
    // The starter names where each seat is defined: the compose file, not an env file that does not exist.
    const yaml = readFileSync(join(r.dir, "kvgate.yaml"), "utf8");
    expect(yaml).toContain(`#   chat (${CF}:3): engine vllm (by image), gpu 0`);
    expect(yaml).not.toContain("scripts/");
    expect(yaml).not.toMatch(/^services:/m);
    // The flag is a word of compose's `command:` string: the fix edits it there.
    expectUtilizationAdvice(open, CF, 5);
    fixAddCommit(r, CF, /^ {4}environment:\n {6}HUGGING_FACE_HUB_TOKEN: .*\n/m);
    expect(checkAll(r)).toMatchObject({ verdict: "pass", coverage: { sized: 2, cards: 2, not_engines: ["webui"], unsized: [] } });
  });

  test("a systemd-unit host: refused for its utilization and its key; check --fix, git add: it passes", async () => {
    const r = await hostRepo(SYSTEMD);
    const U = "ops/systemd/vllm-chat.service";
    const open = initAndRefuse(
      r,
      [
        ["kv/covers-context", "vllm-chat", U],
        ["secret/huggingface-token", null, U],
      ],
      { sized: 2, cards: 2, not_engines: [], unsized: [] },
    );
    expect(readFileSync(join(r.dir, "kvgate.yaml"), "utf8")).toContain(
      "#   vllm-embed (ops/systemd/vllm-embed.service): engine vllm (by command), gpu 1",
    );
    // The flag sits on a continuation line of ExecStart (line 9 is where the setting starts): the fix edits it there.
    expectUtilizationAdvice(open, U, 9);
    fixAddCommit(r, U, /^ {2}-e HUGGING_FACE_HUB_TOKEN=.*\n/m);
    expect(checkAll(r)).toMatchObject({ verdict: "pass", coverage: { sized: 2, cards: 2, unsized: [] } });
  });

  test("a byte pin on vLLM 0.8.5 is a boot failure, not a pin: no advice or --fix adjusts it", async () => {
    const unit = SYSTEMD["ops/systemd/vllm-chat.service"]
      .replace("--gpu-memory-utilization 0.45", "--kv-cache-memory-bytes 8589934592")
      .replace(/^ {2}-e HUGGING_FACE_HUB_TOKEN=.*\n/m, "");
    const r = await hostRepo({ ...SYSTEMD, "ops/systemd/vllm-chat.service": unit });
    expect(kvgate(["init", "--from-host", hostCsv(2, "NVIDIA GeForce RTX 4090", 24564)], { cwd: r.dir }).code).toBe(0);
    const doc = checkAll(r);
    const open = doc.findings.filter((f) => f.status === "open");
    expect(open.filter((f) => f.service === "vllm-chat").map((f) => f.rule)).toEqual(["engine/removed-flag"]);
    expect(open[0]?.message).toContain("--kv-cache-memory-bytes does not exist in vLLM 0.8.5 (it came in 0.10.2)");
    const fix = kvgate(["check", "--all", "--fix"], { cwd: r.dir });
    expect(fix.stdout).not.toContain("fixed ops/systemd/vllm-chat.service");
    expect(readFileSync(join(r.dir, "ops/systemd/vllm-chat.service"), "utf8")).toBe(unit);
    // The advice applied: the flag removed, vLLM 0.8.5's default utilization (0.9) leaves the KV.
    r.write("ops/systemd/vllm-chat.service", unit.replace(" --kv-cache-memory-bytes 8589934592", ""));
    expect(checkAll(r).findings.filter((f) => f.status === "open" && f.severity === "error")).toEqual([]);
  });
});
