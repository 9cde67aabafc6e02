// Issue 24's done-means, end to end: a fleet written the operator's way — no scripts/, no ENGINE key,
// the image in VLLM_IMAGE (vLLM 0.8.5 on one seat), every flag in one VLLM_EXTRA_ARGS string, an fp8
// seat, a context too long, a pasted key, a UI's `changeme` — set up only with `kvgate init` (the cards
// from the host's nvidia-smi output), is refused for exactly its sizing mistakes and its key, with
// advice that works on the version each seat runs, in the file's own spelling; after `check --fix`
// (and the key removed) and `git add` it passes. Real git, the built CLI, init's real hooks.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { makeRepo, type TempRepo } from "../helpers/repo.js";
import { kvgate } from "../helpers/cli.js";
import { gitCommit } from "../helpers/install.js";
import { hostCsv } from "../helpers/init-repo.js";
import { FAKE } from "../secrets/helpers.js";

const made: TempRepo[] = [];
afterAll(async () => {
  for (const r of made.splice(0)) await r.cleanup();
});

const cap = (n: number) => `--override-generation-config '{\\"max_new_tokens\\":${n}}'`;
const FILES: Record<string, string> = {
  // Card 0, alone: Qwen3-8B quantised to fp8 at load (8.8 GiB, not bf16's 15.3), on vLLM 0.8.5 (no
  // byte pin there). 65,536 tokens is past the model's 40,960, and 0.6 of the card leaves too little KV.
  "deploy/chat.env": [
    "# chat: the big seat, first 4090",
    "VLLM_IMAGE=vllm/vllm-openai:v0.8.5",
    "CUDA_VISIBLE_DEVICES=0",
    `HF_TOKEN=${FAKE.hf}`,
    `VLLM_EXTRA_ARGS="--model Qwen/Qwen3-8B --quantization fp8 --max-model-len 65536 --gpu-memory-utilization 0.6 ${cap(4096)}"`,
    "",
  ].join("\n"),
  // Card 1, shared: two seats on vLLM 0.10.2 with no byte pin — each one's KV would count the other.
  "deploy/coder.env": [
    "VLLM_IMAGE=vllm/vllm-openai:v0.10.2",
    "CUDA_VISIBLE_DEVICES=1",
    `VLLM_EXTRA_ARGS="--model Qwen/Qwen3-4B --max-model-len 32768 --gpu-memory-utilization 0.6 ${cap(4096)}"`,
    "",
  ].join("\n"),
  // Its own KV is enough (0.3 × 23.99 GiB − weights 3.8 GiB − overhead 1.35 GiB = 2.05 GiB ≥ 1.5 GiB), but
  // unpinned beside coder it is refused all the same.
  "deploy/embed.env": [
    "VLLM_IMAGE=vllm/vllm-openai:v0.10.2",
    "CUDA_VISIBLE_DEVICES=1",
    `VLLM_EXTRA_ARGS="--model Qwen/Qwen3-1.7B --max-model-len 8192 --gpu-memory-utilization 0.3 ${cap(1024)}"`,
    "",
  ].join("\n"),
  // Not an engine, and its `changeme` values are placeholders, not secrets.
  "deploy/webui.env": "WEBUI_IMAGE=ghcr.io/open-webui/open-webui:0.6.5\nOPENAI_API_KEY=changeme\nWEBUI_SECRET_KEY=changeme\n",
  "deploy/up.sh": '#!/bin/sh\nfor s in chat coder embed; do docker run -d --gpus all --env-file "deploy/$s.env" vllm/vllm-openai; done\n',
};

interface Found {
  rule: string;
  severity: string;
  status: string;
  file: string | null;
  line: number | null;
  service: string | null;
  message: string;
  data: Record<string, unknown>;
}

async function operatorRepo(): Promise<TempRepo> {
  const r = await makeRepo();
  made.push(r);
  for (const [p, t] of Object.entries(FILES)) r.write(p, t);
  r.stage();
  r.commit("the fleet as it runs today");
  return r;
}

describe("an operator's own fleet, set up only with kvgate init", () => {
  test("refused for exactly its sizing mistakes and its key; check --fix, the key removed, git add: it passes", async () => {
    const r = await operatorRepo();
    const init = kvgate(["init", "--from-host", hostCsv(2, "NVIDIA GeForce RTX 4090", 24564)], { cwd: r.dir });
    expect(init.code, init.stdout + init.stderr).toBe(0);
    expect(init.stdout).toContain('wrote     kvgate.yaml (3 seats found, services: "deploy/*.env"; 2 cards of');
    expect(init.stdout).toContain("not taken deploy/webui.env: no engine signal");

    // The commit that turns the gate on is checked as --all: the fleet's whole state.
    r.stage();
    const first = gitCommit(r, "turn the gate on");
    expect(first.code, first.out).not.toBe(0);
    const json = kvgate(["check", "--all", "--format", "json"], { cwd: r.dir });
    const doc = JSON.parse(json.stdout) as { findings: Found[]; coverage: unknown };
    const open = doc.findings.filter((f) => f.status === "open" && f.severity === "error");
    expect(open.map((f) => [f.rule, f.service, f.file]).sort()).toEqual(
      [
        ["kv/context-max", "chat", "deploy/chat.env"],
        ["kv/covers-context", "chat", "deploy/chat.env"],
        ["kv/covers-context", "coder", "deploy/coder.env"],
        ["kv/unpinned-shared-card", "coder", "deploy/coder.env"],
        ["kv/unpinned-shared-card", "embed", "deploy/embed.env"],
        ["secret/huggingface-token", null, "deploy/chat.env"],
      ].sort(),
    );
    expect(doc.coverage).toEqual({ sized: 3, cards: 2, not_engines: ["webui"], unsized: [] });
    // fp8 at load: the weights are the quantised ones, so the estimate is not the bf16 checkpoint's.
    const explain = kvgate(["explain", "chat"], { cwd: r.dir });
    expect(explain.stdout).toMatch(/weights {2}--quantization fp8: linear layers .* × 1\/2 bytes \+ embeddings .* = 8\.\d+ GiB/);
    // vLLM 0.8.5 has no --kv-cache-memory-bytes: the advice is its utilization, in VLLM_EXTRA_ARGS' spelling.
    const chat = open.find((f) => f.rule === "kv/covers-context");
    expect(chat?.message).toContain("vLLM 0.8.5 has none: --kv-cache-memory-bytes came in 0.10.2");
    expect(chat?.data.fix).toMatchObject({ file: "deploy/chat.env", line: 5, key: "--gpu-memory-utilization" });
    expect(JSON.stringify(doc)).not.toContain("--kv-cache-memory-bytes 0");
    // 0.10.2 has the pin: it goes inside VLLM_EXTRA_ARGS, where the file's flags live (both rules ask the same one).
    for (const f of open.filter((x) => x.service !== "chat" && x.rule.startsWith("kv/")))
      expect(f.data.fix).toMatchObject({ key: "--kv-cache-memory-bytes", into: "VLLM_EXTRA_ARGS" });
    // No finding says KV_CACHE_MEMORY_BYTES: vLLM never reads it from a docker --env-file.
    expect(json.stdout).not.toContain("KV_CACHE_MEMORY_BYTES");

    // The fixes, written into the working tree; the key is the user's to remove (and rotate).
    const fix = kvgate(["check", "--all", "--fix"], { cwd: r.dir });
    expect(fix.stdout).toMatch(/kvgate --fix: wrote \d+ values into the working tree/);
    const chatEnv = readFileSync(join(r.dir, "deploy/chat.env"), "utf8");
    expect(chatEnv).toContain("--max-model-len 40960");
    expect(chatEnv).toMatch(/--gpu-memory-utilization 0\.\d\d/);
    expect(chatEnv).not.toContain("kv-cache-memory-bytes");
    expect(readFileSync(join(r.dir, "deploy/coder.env"), "utf8")).toMatch(/--kv-cache-memory-bytes \d+"/);
    r.write("deploy/chat.env", chatEnv.replace(/^HF_TOKEN=.*\n/m, ""));
    r.stage();
    const second = gitCommit(r, "turn the gate on, the fleet sized");
    expect(second.code, second.out).toBe(0);
    expect(r.git("log", "-1", "--format=%B")).toContain("Kvgate-Verdict: pass");
    const after = JSON.parse(kvgate(["check", "--all", "--format", "json"], { cwd: r.dir }).stdout) as {
      verdict: string;
      coverage: unknown;
    };
    expect(after).toMatchObject({ verdict: "pass", coverage: { sized: 3, cards: 2, not_engines: ["webui"], unsized: [] } });
  });

  test("without the host's cards every seat is refused as unsized, and the stanza to fill is named", async () => {
    const r = await operatorRepo();
    expect(kvgate(["init"], { cwd: r.dir }).code).toBe(0);
    expect(readFileSync(join(r.dir, "kvgate.yaml"), "utf8")).toContain("# fleet:   # TODO: the card inventory.");
    const doc = JSON.parse(kvgate(["check", "--all", "--format", "json"], { cwd: r.dir }).stdout) as {
      verdict: string;
      findings: Found[];
      coverage: { sized: number; unsized: string[] };
    };
    expect(doc.verdict).toBe("fail");
    expect(doc.coverage).toMatchObject({ sized: 0, unsized: ["chat", "coder", "embed"] });
    expect(doc.findings.filter((f) => f.rule === "fleet/unsized").map((f) => f.service)).toEqual(["chat", "coder", "embed"]);
  });
});
