// The committed env file with a playbook's edits laid over it: values, lines and files.
import { describe, expect, test } from "vitest";
import { parseEnv } from "../../src/parse/env.js";
import { overlayEnv, deployedEnv } from "../../src/playbook/overlay.js";
import type { EnvEdit, PlaybookDeploy } from "../../src/playbook/records.js";

const F = "scripts/coder.env";
const PB = "playbooks/p.yaml";
const committed = parseEnv(
  [
    "ENGINE=vllm",
    "GPU=0",
    "MAX_MODEL_LEN=16384",
    "KV_CACHE_MEMORY_BYTES=4G",
    'SERVE_ARGS="--served-model-name coder --max-num-seqs 4"',
    "HF_HOME=/models",
    "",
  ].join("\n"),
  F,
);
const entry = (env: ReturnType<typeof overlayEnv>, key: string) => {
  const e = env.entries.get(key);
  return e ? [e.value, e.line, e.file ?? env.file] : null;
};

describe("overlayEnv", () => {
  test("set replaces in place with the playbook's line and file; untouched entries keep the env file's", () => {
    const out = overlayEnv(committed, [{ kind: "set", key: "MAX_MODEL_LEN", value: "32768", line: 12, file: PB }]);
    expect(entry(out, "MAX_MODEL_LEN")).toEqual(["32768", 12, PB]);
    expect(entry(out, "GPU")).toEqual(["0", 2, F]);
    expect(out.all.map((e) => e.key)).toEqual(["ENGINE", "GPU", "MAX_MODEL_LEN", "KV_CACHE_MEMORY_BYTES", "SERVE_ARGS", "HF_HOME"]);
    expect(out.file).toBe(F);
    expect(committed.entries.get("MAX_MODEL_LEN")?.value).toBe("16384");
  });

  test("remove drops the key (and its flags for a flag key)", () => {
    const out = overlayEnv(committed, [
      { kind: "remove", key: "KV_CACHE_MEMORY_BYTES", line: 3, file: PB },
      { kind: "remove", key: "SERVE_ARGS", line: 4, file: PB },
    ]);
    expect([out.entries.has("KV_CACHE_MEMORY_BYTES"), out.flags.length]).toEqual([false, 0]);
  });

  test("set of a flag key re-reads its flags at the playbook's line", () => {
    const out = overlayEnv(committed, [
      { kind: "set", key: "SERVE_ARGS", value: "--max-num-seqs 8 --max-model-len 40960", line: 20, file: PB },
    ]);
    expect(out.flags.map((f) => [f.name, f.value, f.line, f.file])).toEqual([
      ["--max-num-seqs", "8", 20, PB],
      ["--max-model-len", "40960", 20, PB],
    ]);
  });

  test("flags (a container command) replaces every flag key; list words keep their lines", () => {
    const edit: EnvEdit = {
      kind: "flags",
      key: "COMMAND",
      value: "vllm serve Qwen/Qwen3-8B --max-model-len 40960",
      line: 9,
      file: PB,
      wordLines: [10, 11, 12, 13, 14],
    };
    const out = overlayEnv(committed, [edit]);
    expect(out.entries.has("SERVE_ARGS")).toBe(false);
    expect(out.flags.map((f) => [f.name, f.value, f.line, f.file])).toEqual([["--max-model-len", "40960", 13, PB]]);
    expect(out.positionals.map((p) => [p.word, p.line])).toEqual([
      ["vllm", 10],
      ["serve", 11],
      ["Qwen/Qwen3-8B", 12],
    ]);
    expect(entry(out, "HF_HOME")).toEqual(["/models", 6, F]);
  });

  test("gpus writes GPU, or CUDA_VISIBLE_DEVICES when that is what the env file uses", () => {
    expect(entry(overlayEnv(committed, [{ kind: "gpus", value: "0,1", line: 7, file: PB }]), "GPU")).toEqual(["0,1", 7, PB]);
    const cuda = parseEnv("CUDA_VISIBLE_DEVICES=1\n", F);
    const out = overlayEnv(cuda, [{ kind: "gpus", value: "0", line: 7, file: PB }]);
    expect([entry(out, "CUDA_VISIBLE_DEVICES"), out.entries.has("GPU")]).toEqual([["0", 7, PB], false]);
  });

  test("reset (copy content, template) starts from nothing", () => {
    const out = overlayEnv(committed, [
      { kind: "reset", line: 5, file: PB },
      { kind: "set", key: "ENGINE", value: "vllm", line: 6, file: PB },
    ]);
    expect([[...out.entries.keys()], out.flags]).toEqual([["ENGINE"], []]);
  });

  test("deployedEnv of a service with no committed env file", () => {
    const d: PlaybookDeploy = {
      playbook: PB,
      service: "new",
      envFile: "scripts/new.env",
      edits: [{ kind: "set", key: "GPU", value: "1", line: 3, file: PB }],
    };
    const out = deployedEnv(d, null);
    expect([out.file, entry(out, "GPU")]).toEqual(["scripts/new.env", ["1", 3, PB]]);
  });
});

describe("values a variable holds (a role's template rendered from host_vars)", () => {
  const J2 = "roles/vllm/templates/vllm.env.j2";
  const HV = "host_vars/gpu-b.yml";
  const at = (line: number, name: string) => ({ file: HV, line, name, yaml: true });

  test("an entry is the variable's: its file, line and name (the spelling a fix uses)", () => {
    const out = overlayEnv(committed, [
      { kind: "set", key: "MAX_MODEL_LEN", value: "40960", line: 3, file: J2, from: at(4, "max_model_len") },
    ]);
    const e = out.entries.get("MAX_MODEL_LEN");
    expect([e?.value, e?.file, e?.line, e?.variable, e?.yaml]).toEqual(["40960", HV, 4, "max_model_len", true]);
  });

  test("each flag a variable wrote is the variable's; the other flags stay at the template's line", () => {
    const out = overlayEnv(committed, [
      {
        kind: "set",
        key: "SERVE_ARGS",
        value: "--model Qwen/Qwen3-8B --max-model-len 40960 --enforce-eager",
        line: 7,
        file: J2,
        flagFrom: [{ flag: "--max-model-len", value: "40960", from: at(4, "max_model_len") }],
      },
    ]);
    expect(out.flags.map((f) => [f.spelled, f.value, f.file, f.line, f.variable ?? null])).toEqual([
      ["--model", "Qwen/Qwen3-8B", J2, 7, null],
      ["--max-model-len", "40960", HV, 4, "max_model_len"],
      ["--enforce-eager", null, J2, 7, null],
    ]);
  });

  test("a variable that holds the whole command string holds each of its flags", () => {
    const out = overlayEnv(committed, [
      { kind: "set", key: "SERVE_ARGS", value: "--max-model-len 40960", line: 7, file: J2, from: at(9, "vllm_args") },
    ]);
    expect(out.flags.map((f) => [f.spelled, f.file, f.line, f.variable ?? null])).toEqual([["--max-model-len", HV, 9, null]]);
  });

  test("the play's host is HOST unless the file sets one", () => {
    const host: EnvEdit = { kind: "host", value: "gpu-b", line: 3, file: "inventory/hosts" };
    expect(entry(overlayEnv(committed, [host]), "HOST")).toEqual(["gpu-b", 3, "inventory/hosts"]);
    const own = overlayEnv(committed, [{ kind: "set", key: "HOST", value: "fv-ml1", line: 1, file: J2 }, host]);
    expect(entry(own, "HOST")).toEqual(["fv-ml1", 1, J2]);
  });
});
