// A seat kvgate cannot size (here: flags written through shell variables, `--max-model-len ${MAX_LEN}`)
// was already refused at HEAD, so "new issues only" dropped its errors from every later change: a
// commit that cut its pin to 1 GiB and raised its context to 131,072 passed. A change that moves such a
// seat's values answers for its errors, old or new; a comment-only edit of its file still passes.
import { afterEach, describe, expect, test } from "vitest";
import { makeRepo, type TempRepo } from "../helpers/repo.js";
import { kvgate, type JsonFinding } from "../helpers/cli.js";

const made: TempRepo[] = [];
afterEach(async () => {
  for (const r of made.splice(0)) await r.cleanup();
});

const CONFIG = "version: 1\nfleet:\n  hosts:\n    gpu-a:\n      gpus:\n        - { index: 0, total: 48GiB, reserve: 1GiB }\n";
const env = (len: string, kv: string, comment = "") =>
  [
    `${comment}HOST=gpu-a`,
    "GPU=0",
    "MODEL=Qwen/Qwen3-8B",
    "VLLM_VERSION=0.11.0",
    `MAX_LEN=${len}`,
    `KV_BYTES=${kv}`,
    `VLLM_EXTRA_ARGS="--max-model-len \${MAX_LEN} --kv-cache-memory-bytes \${KV_BYTES} --override-generation-config '{\\"max_new_tokens\\":4096}'"`,
    "",
  ].join("\n");

function staged(r: TempRepo): { code: number | null; found: JsonFinding[]; unsized: string[] } {
  const run = kvgate(["check", "--staged", "--format", "json"], { cwd: r.dir });
  const doc = JSON.parse(run.stdout) as { findings: JsonFinding[]; coverage?: { unsized: string[] } };
  return { code: run.code, found: doc.findings, unsized: doc.coverage?.unsized ?? [] };
}

describe("an edit of a seat kvgate cannot size", () => {
  test("moving its values answers for its errors (old ones included); a comment-only edit does not", async () => {
    const r = await makeRepo();
    made.push(r);
    r.write("kvgate.yaml", CONFIG);
    r.write("scripts/chat.env", env("32768", "6G"));
    r.stage();
    const first = staged(r);
    // The seat is not counted as sized: its length and pin are unread (sizing it at the model's default
    // would be sizing something that does not run).
    expect(first.unsized).toEqual(["chat"]);
    expect(first.found.filter((f) => f.rule === "engine/bad-value").map((f) => f.line)).toEqual([7, 7]);
    r.commit("base", { noVerify: true });

    r.write("scripts/chat.env", env("131072", "1G"));
    r.stage();
    const moved = staged(r);
    expect(moved.code).toBe(1);
    expect(moved.found.filter((f) => f.severity === "error").map((f) => [f.rule, f.service])).toEqual([
      ["engine/bad-value", "chat"],
      ["engine/bad-value", "chat"],
    ]);

    r.write("scripts/chat.env", env("32768", "6G", "# the chat seat\n"));
    r.stage();
    const comment = staged(r);
    expect(comment.found).toEqual([]);
    expect(comment.code).toBe(0);
  });
});
