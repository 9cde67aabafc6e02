// The value-fix writer, as a table: the text before, the fix, the text after (and what it reports).
import { describe, expect, test } from "vitest";
import { applyFixes } from "../../src/fix/edit.js";
import { fixesOf } from "../../src/fix/collect.js";
import type { Finding } from "../../src/model/types.js";

const fix = (key: string, value: string, line: number | null = null, file = "scripts/a.env") => ({ file, line, key, value });

describe("applyFixes", () => {
  test.each([
    [
      "an env line, its comment kept",
      "A=1\nGPU_HEADROOM_MIB=32   # floor 48\n",
      fix("GPU_HEADROOM_MIB", "48", 2),
      "A=1\nGPU_HEADROOM_MIB=48   # floor 48\n",
    ],
    ["export and double quotes kept", 'export MAX_MODEL_LEN="40960"\n', fix("MAX_MODEL_LEN", "32768", 1), 'export MAX_MODEL_LEN="32768"\n'],
    [
      "single quotes kept",
      "KV_CACHE_MEMORY_BYTES='6442450944'\n",
      fix("KV_CACHE_MEMORY_BYTES", "8053063680", 1),
      "KV_CACHE_MEMORY_BYTES='8053063680'\n",
    ],
    ["an empty value", "TTM_MIN_MIB=\n", fix("TTM_MIN_MIB", "97792", 1), "TTM_MIN_MIB=97792\n"],
    [
      "a flag inside a quoted ARGS value",
      'SERVE_ARGS="--served-model-name x --gpu-memory-utilization 0.9 --max-num-seqs 4"\n',
      fix("--gpu-memory-utilization", "0.74", 1),
      'SERVE_ARGS="--served-model-name x --gpu-memory-utilization 0.74 --max-num-seqs 4"\n',
    ],
    ["a --flag=value", "ARGS=--max_model_len=65536\n", fix("--max_model_len", "40960", 1), "ARGS=--max_model_len=40960\n"],
    [
      "the line hint is stale: the last line that sets the key",
      "# MAX_MODEL_LEN=1\nB=2\nMAX_MODEL_LEN=65536\n",
      fix("MAX_MODEL_LEN", "40960", 1),
      "# MAX_MODEL_LEN=1\nB=2\nMAX_MODEL_LEN=40960\n",
    ],
    ["a key that is a suffix of another is not touched", "VLLM_TP=4\nTP=2\n", fix("TP", "1", null), "VLLM_TP=4\nTP=1\n"],
    ["an unset key is added at the end", "A=1\n", fix("KV_CACHE_MEMORY_BYTES", "6442450944"), "A=1\nKV_CACHE_MEMORY_BYTES=6442450944\n"],
    ["an unset key is added after a last line with no newline", "A=1", fix("TTM_MIN_MIB", "97792"), "A=1\nTTM_MIN_MIB=97792\n"],
    ["CR-only line endings kept", "A=1\rTTM_MIN_MIB=97791\r", fix("TTM_MIN_MIB", "97792", 2), "A=1\rTTM_MIN_MIB=97792\r"],
    [
      "a YAML env map in a playbook",
      '      env:\n        MAX_MODEL_LEN: "65536"\n',
      fix("MAX_MODEL_LEN", "40960", 2, "playbooks/p.yml"),
      '      env:\n        MAX_MODEL_LEN: "40960"\n',
    ],
    [
      "a lineinfile line",
      '        line: "MAX_MODEL_LEN=65536"\n',
      fix("MAX_MODEL_LEN", "40960", 1, "playbooks/p.yml"),
      '        line: "MAX_MODEL_LEN=40960"\n',
    ],
    [
      "a JSON flag value inside a double-quoted env value: its quotes written escaped",
      `SERVE_ARGS="--served-model-name v --override-generation-config '{\\"max_new_tokens\\":65536,\\"temperature\\":0.7}'"\n`,
      fix("--override-generation-config", '{"max_new_tokens":40960,"temperature":0.7}', 1),
      `SERVE_ARGS="--served-model-name v --override-generation-config '{\\"max_new_tokens\\":40960,\\"temperature\\":0.7}'"\n`,
    ],
    [
      "a JSON flag value on a compose command line: written as is",
      `      --override-generation-config '{"max_new_tokens":65536}'\n`,
      fix("--override-generation-config", '{"max_new_tokens":40960}', 1, "hosts/h/compose.yaml"),
      `      --override-generation-config '{"max_new_tokens":40960}'\n`,
    ],
    [
      "a flag in a YAML flow list (a Kubernetes args line): the list's quotes kept",
      `          args: ["Qwen/Qwen3-8B", "--max-model-len", "65536"]\n`,
      fix("--max-model-len", "40960", 1, "k8s/chat.yaml"),
      `          args: ["Qwen/Qwen3-8B", "--max-model-len", "40960"]\n`,
    ],
    [
      "a flag alone on a YAML block list item: its value is the next item",
      `          args:\n            - --gpu-memory-utilization\n            # the L4's share\n            - "0.9"\n`,
      fix("--gpu-memory-utilization", "0.45", 2, "k8s/chat.yaml"),
      `          args:\n            - --gpu-memory-utilization\n            # the L4's share\n            - "0.45"\n`,
    ],
    [
      "a bare unit size on a compose command item becomes a quoted number: the item stays a string (compose refuses a number)",
      `    command:\n      - --kv-cache-memory-bytes\n      - 6G\n`,
      fix("--kv-cache-memory-bytes", "8053063680", 2, "hosts/h/compose.yaml"),
      `    command:\n      - --kv-cache-memory-bytes\n      - "8053063680"\n`,
    ],
    [
      "a bare item that is already a number keeps its form",
      `    args:\n      - --max-model-len\n      - 32768\n`,
      fix("--max-model-len", "40960", 2, "k8s/chat.yaml"),
      `    args:\n      - --max-model-len\n      - 40960\n`,
    ],
    [
      "a bare flow-list item becomes a quoted number",
      `          args: ["--kv-cache-memory-bytes", 6G]\n`,
      fix("--kv-cache-memory-bytes", "8053063680", 1, "k8s/chat.yaml"),
      `          args: ["--kv-cache-memory-bytes", "8053063680"]\n`,
    ],
    [
      "a chart values key (vllmConfig.maxModelLen)",
      "    vllmConfig:\n      maxModelLen: 16384\n",
      fix("maxModelLen", "8192", 2, "charts/stack/values.yaml"),
      "    vllmConfig:\n      maxModelLen: 8192\n",
    ],
    [
      "a GPU limit key with a dot and a slash",
      '            limits:\n              nvidia.com/gpu: "2"\n',
      fix("nvidia.com/gpu", "4", 2, "k8s/chat.yaml"),
      '            limits:\n              nvidia.com/gpu: "4"\n',
    ],
  ])("%s", (_name, before, f, after) => {
    const r = applyFixes(before, f.file, [f]);
    expect(r.failed).toEqual([]);
    expect(r.text).toBe(after);
    expect(r.applied).toHaveLength(1);
  });

  test.each([
    [
      "a block list under command: two items after its last, at its indent",
      '    command:\n      - Qwen/Qwen3-8B\n      - --max-model-len\n      - "8192"\n    deploy: {}\n',
      1,
      "    command:\n      - Qwen/Qwen3-8B\n      - --max-model-len\n      - \"8192\"\n      - --kv-cache-memory-bytes\n      - '8053063680'\n    deploy: {}\n",
    ],
    [
      "the command's line is its first item (a comment between items kept)",
      "    args:\n    - Qwen/Qwen3-8B\n    # the context\n    - --max-model-len=8192\n",
      2,
      "    args:\n    - Qwen/Qwen3-8B\n    # the context\n    - --max-model-len=8192\n    - --kv-cache-memory-bytes\n    - '8053063680'\n",
    ],
    [
      "a flow list",
      '    command: ["Qwen/Qwen3-8B", "--max-model-len", "8192"]  # the chat seat\n',
      1,
      '    command: ["Qwen/Qwen3-8B", "--max-model-len", "8192", "--kv-cache-memory-bytes", "8053063680"]  # the chat seat\n',
    ],
    [
      "a one-line string",
      "    command: Qwen/Qwen3-8B --max-model-len 8192\n",
      1,
      "    command: Qwen/Qwen3-8B --max-model-len 8192 --kv-cache-memory-bytes 8053063680\n",
    ],
    [
      "a double-quoted string",
      '    command: "Qwen/Qwen3-8B --max-model-len 8192"\n',
      1,
      '    command: "Qwen/Qwen3-8B --max-model-len 8192 --kv-cache-memory-bytes 8053063680"\n',
    ],
    [
      "a folded block scalar: on its last line",
      "    command: >\n      Qwen/Qwen3-8B\n      --max-model-len 8192\n    ports: []\n",
      1,
      "    command: >\n      Qwen/Qwen3-8B\n      --max-model-len 8192 --kv-cache-memory-bytes 8053063680\n    ports: []\n",
    ],
  ])("a flag added to a YAML container command: %s", (_name, before, line, after) => {
    const f = { ...fix("--kv-cache-memory-bytes", "8053063680", line, "hosts/h/compose.yaml"), into: "command" };
    const r = applyFixes(before, f.file, [f]);
    expect(r.failed).toEqual([]);
    expect(r.text).toBe(after);
    expect(r.applied).toHaveLength(1);
  });

  test("a flag for one service's command is not written into another service that sets it", () => {
    const text =
      'services:\n  a:\n    command: ["m", "--max-model-len", "8192"]\n  b:\n    command: ["m", "--kv-cache-memory-bytes", "1G"]\n';
    const f = { ...fix("--kv-cache-memory-bytes", "2684354560", 3, "c.yaml"), into: "command" };
    const r = applyFixes(text, "c.yaml", [f]);
    expect(r.text).toBe(
      'services:\n  a:\n    command: ["m", "--max-model-len", "8192", "--kv-cache-memory-bytes", "2684354560"]\n  b:\n    command: ["m", "--kv-cache-memory-bytes", "1G"]\n',
    );
  });

  test("CRLF kept when items are added to a block list", () => {
    const f = { ...fix("--kv-cache-memory-bytes", "8053063680", 1, "c.yaml"), into: "command" };
    const r = applyFixes("command:\r\n  - a\r\nx: 1\r\n", "c.yaml", [f]);
    expect(r.text).toBe("command:\r\n  - a\r\n  - --kv-cache-memory-bytes\r\n  - '8053063680'\r\nx: 1\r\n");
  });

  test("what was there and the line written are reported", () => {
    const r = applyFixes("A=1\nTTM_MIN_MIB=97791\n", "scripts/a.env", [fix("TTM_MIN_MIB", "97792", 2), fix("TTM_TARGET_MIB", "98816")]);
    expect(r.applied.map((a) => [a.line, a.fix.key, a.from, a.to])).toEqual([
      [2, "TTM_MIN_MIB", "97791", "97792"],
      [3, "TTM_TARGET_MIB", null, "98816"],
    ]);
  });

  test("the value that was there is reported unescaped (the JSON as the flag reads it)", () => {
    const r = applyFixes(`SERVE_ARGS="--override-generation-config '{\\"max_new_tokens\\":65536}'"\n`, "scripts/a.env", [
      fix("--override-generation-config", '{"max_new_tokens":40960}', 1),
    ]);
    expect(r.applied.map((a) => [a.from, a.to])).toEqual([['{"max_new_tokens":65536}', '{"max_new_tokens":40960}']]);
  });

  test("a key no line sets in a file that is not an env file is not placed: reported, text unchanged", () => {
    const r = applyFixes("- hosts: x\n", "playbooks/p.yml", [fix("MAX_MODEL_LEN", "40960", 1, "playbooks/p.yml")]);
    expect(r.text).toBe("- hosts: x\n");
    expect(r.failed).toEqual([
      { fix: fix("MAX_MODEL_LEN", "40960", 1, "playbooks/p.yml"), why: "playbooks/p.yml does not set MAX_MODEL_LEN any more" },
    ]);
  });

  test.each([
    ["a Jinja variable", '        line: "MAX_MODEL_LEN={{ coder_ctx | int }}"\n'],
    ["a compose variable", "      - --max-model-len=${CTX:-40960}\n"],
    ["a container variable", '            - "--max-model-len=$(CTX)"\n'],
  ])("a value written through %s is not overwritten: reported, text unchanged", (_name, text) => {
    const key = text.includes("--max-model-len") ? "--max-model-len" : "MAX_MODEL_LEN";
    const r = applyFixes(text, "playbooks/p.yml", [fix(key, "32768", 1, "playbooks/p.yml")]);
    expect(r.text).toBe(text);
    expect(r.failed.map((f) => f.why)).toEqual([`playbooks/p.yml sets ${key} through a variable: set 32768 where the variable is defined`]);
  });

  test("a flag no line carries is not invented", () => {
    const r = applyFixes("A=1\n", "scripts/a.env", [fix("--gpu-memory-utilization", "0.5", 1)]);
    expect([r.text, r.applied.length, r.failed.length]).toEqual(["A=1\n", 0, 1]);
  });
});

describe("fixesOf", () => {
  const finding = (rule: string, status: Finding["status"], data: Record<string, unknown>): Finding => ({
    rule,
    severity: "error",
    status,
    message: "",
    file: null,
    line: null,
    service: null,
    commit: null,
    fingerprint: "",
    data,
  });
  test("open findings only, data.fixes over data.fix, one per file and key, malformed fixes ignored", () => {
    const byFile = fixesOf([
      finding("ttm/ledger", "open", { fix: fix("TTM_MIN_MIB", "1"), fixes: [fix("TTM_MIN_MIB", "1"), fix("TTM_TARGET_MIB", "2")] }),
      finding("ttm/target", "open", { fix: fix("TTM_TARGET_MIB", "3") }),
      finding("kv/covers-context", "exempt", { fix: fix("KV_CACHE_MEMORY_BYTES", "9", 1, "scripts/b.env") }),
      finding("kv/oversized", "open", { fix: { file: "scripts/c.env", key: "X" } }),
    ]);
    expect([...byFile.keys()]).toEqual(["scripts/a.env"]);
    expect(byFile.get("scripts/a.env")?.map((f) => [f.rule, f.key, f.value])).toEqual([
      ["ttm/ledger", "TTM_MIN_MIB", "1"],
      ["ttm/ledger", "TTM_TARGET_MIB", "2"],
    ]);
  });
});

describe("a flag added inside the key that holds the file's flags (into)", () => {
  const into = (key: string, value: string, at: number | null, holder = "VLLM_EXTRA_ARGS") => ({
    file: "deploy/chat.env",
    line: at,
    key,
    value,
    into: holder,
  });
  test("appended inside a double-quoted VLLM_EXTRA_ARGS, the rest of the line kept", () => {
    const text = 'VLLM_IMAGE=vllm/vllm-openai:v0.8.5\nVLLM_EXTRA_ARGS="--model Qwen/Qwen3-8B --max-model-len 32768" # ctx\n';
    const e = applyFixes(text, "deploy/chat.env", [into("--gpu-memory-utilization", "0.62", 2)]);
    expect(e.text).toBe(
      'VLLM_IMAGE=vllm/vllm-openai:v0.8.5\nVLLM_EXTRA_ARGS="--model Qwen/Qwen3-8B --max-model-len 32768 --gpu-memory-utilization 0.62" # ctx\n',
    );
    expect(e.applied.map((a) => [a.line, a.from, a.to])).toEqual([[2, null, "0.62"]]);
    expect(e.failed).toEqual([]);
  });
  test("a JSON value is escaped for the double quotes it goes into; single quotes keep it literal", () => {
    const json = '{"max_new_tokens":4096}';
    const dq = applyFixes('ARGS="--model m"\n', "x.env", [into("--override-generation-config", json, null, "ARGS")]);
    expect(dq.text).toBe('ARGS="--model m --override-generation-config {\\"max_new_tokens\\":4096}"\n');
    const sq = applyFixes("ARGS='--model m'\n", "x.env", [into("--override-generation-config", json, null, "ARGS")]);
    expect(sq.text).toBe(`ARGS='--model m --override-generation-config ${json}'\n`);
  });
  test("a bare one-word value is quoted; a flag already there is changed in place, not added twice", () => {
    expect(applyFixes("ARGS=--foo\n", "x.env", [into("--max-model-len", "8192", 1, "ARGS")]).text).toBe(
      'ARGS="--foo --max-model-len 8192"\n',
    );
    const set = applyFixes('ARGS="--max-model-len 32768"\n', "x.env", [into("--max-model-len", "8192", 1, "ARGS")]);
    expect(set.text).toBe('ARGS="--max-model-len 8192"\n');
    expect(set.applied.map((a) => a.from)).toEqual(["32768"]);
  });
  test("no line sets the key: the fix fails, nothing is written", () => {
    const e = applyFixes("A=1\n", "x.env", [into("--max-model-len", "8192", null, "ARGS")]);
    expect(e.text).toBe("A=1\n");
    expect(e.failed.map((f) => f.why)).toEqual(["x.env does not set --max-model-len any more"]);
  });
});

describe("a flag added to a systemd unit's ExecStart (into: ExecStart)", () => {
  const unit = [
    "[Service]",
    "ExecStart=/usr/bin/docker run --rm --gpus device=0 vllm/vllm-openai:v0.8.5 \\",
    "  --model Qwen/Qwen3-8B --max-model-len 32768",
    "Restart=always",
    "",
  ].join("\n");
  test("at the end of the command's last continued line, shell-quoted when the value needs it", () => {
    const e = applyFixes(unit, "units/chat.service", [
      { file: "units/chat.service", line: 2, key: "--gpu-memory-utilization", value: "0.62", into: "ExecStart" },
      { file: "units/chat.service", line: 2, key: "--override-generation-config", value: '{"max_new_tokens":4096}', into: "ExecStart" },
    ]);
    expect(e.text.split("\n")[2]).toBe(
      `  --model Qwen/Qwen3-8B --max-model-len 32768 --gpu-memory-utilization 0.62 --override-generation-config '{"max_new_tokens":4096}'`,
    );
    expect(e.applied.map((a) => a.line)).toEqual([3, 3]);
    expect(e.text.split("\n")[3]).toBe("Restart=always");
  });
  test("a flag the command has is changed in place", () => {
    const e = applyFixes(unit, "units/chat.service", [
      { file: "units/chat.service", line: 3, key: "--max-model-len", value: "8192", into: "ExecStart" },
    ]);
    expect(e.text).toContain("--max-model-len 8192\nRestart");
    expect(e.applied.map((a) => [a.line, a.from])).toEqual([[3, "32768"]]);
  });
});
