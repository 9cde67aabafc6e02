// Compose files through the whole gate (the real loader, every check, the finding pipeline): a
// compose deploy is sized at the compose file's lines, drift is named, a card move is fitted.
import { describe, expect, test } from "vitest";
import { runCase } from "../helpers/rule-tester.js";
import { lines } from "./helpers.js";

const CF = "hosts/fv-ml1/compose.yaml";
const config = lines(
  "version: 1",
  "fleet:",
  "  hosts:",
  "    fv-ml1:",
  "      gpus:",
  "        - { index: 0, total: 96GiB, reserve: 1GiB }",
  "        - { index: 1, total: 96GiB, reserve: 1GiB }",
  "  tenants:",
  "    - { name: trainer, host: fv-ml1, gpu: 0, vram: 80GiB, pin: true }",
);
// The env file the compose service loads says what runs (the compose file deploys it: drift otherwise).
const env = lines(
  "ENGINE=vllm",
  "HOST=fv-ml1",
  "GPU=1",
  "MODEL=Qwen/Qwen3-8B",
  "KV_CACHE_MEMORY_BYTES=2G",
  "GPU_MEMORY_UTILIZATION=0.3",
  `SERVE_ARGS="--max-model-len 8192 --override-generation-config '{\\"max_new_tokens\\":4096}'"`,
);
const compose = (len: number, card: number) =>
  lines(
    "x-vllm: &vllm", //                                          1
    "  image: vllm/vllm-openai:v0.10.2", //                      2
    "  ipc: host", //                                            3
    "services:", //                                              4
    "  coder:", //                                               5
    "    <<: *vllm", //                                          6
    "    env_file: ../../scripts/coder.env", //                  7
    "    command:", //                                           8
    "      - Qwen/Qwen3-8B", //                                  9
    "      - --max-model-len", //                                10
    `      - "${len}"`, //                                       11
    "      - --kv-cache-memory-bytes", //                        12
    "      - 2G", //                                             13
    "      - --gpu-memory-utilization", //                       14
    '      - "0.3"', //                                          15
    "      - --override-generation-config", //                   16
    `      - '{"max_new_tokens":4096}'`, //                     17
    "    deploy:", //                                            18
    "      resources:", //                                       19
    "        reservations:", //                                 20
    "          devices:", //                                     21
    `            - { driver: nvidia, device_ids: ["${card}"], capabilities: [gpu] }`, // 22
    "  proxy:", //                                               23
    "    image: nginx:1.27", //                                  24
    "    environment: { UPSTREAM: '${UPSTREAM}' }", //           25
  );
const repo = (len: number, card: number) => ({ "kvgate.yaml": config, "scripts/coder.env": env, [CF]: compose(len, card) });

const rules = (fs: { rule: string }[]) => fs.map((f) => f.rule);

describe("a compose deploy through the gate", () => {
  test("the committed layout passes: the anchor-merged seat is read, the nginx sidecar is not gated", async () => {
    const found = await runCase({ name: "clean", files: repo(8192, 1), beforeFiles: null });
    expect(found.filter((f) => f.severity !== "notice")).toEqual([]);
    // proxy's ${UPSTREAM} is not in a .env, but proxy is no fleet deploy: no notice about it.
    expect(rules(found)).not.toContain("compose/unresolved");
  });

  test("raising --max-model-len without the KV is refused at the compose file's line", async () => {
    const found = await runCase({ name: "raise", files: repo(32768, 1), beforeFiles: repo(8192, 1) });
    const kv = found.find((f) => f.rule === "kv/covers-context");
    // The seat as it runs (the command vLLM reads: compose's context and pin) is judged; the finding
    // stands at the pin's flag, where its fix goes, with the env file's copy of the pin (drift otherwise).
    expect(kv).toMatchObject({ file: CF, line: 12, service: "coder", severity: "error", status: "open" });
    expect(kv?.data).toMatchObject({
      fix: {
        file: CF,
        line: 12,
        key: "--kv-cache-memory-bytes",
        also: { file: "scripts/coder.env", line: 5, key: "KV_CACHE_MEMORY_BYTES" },
      },
    });
    // 1.25 × 32,768 × 147,456 B = 5.625 GiB → 6 GiB required; the env file pins 2 GiB.
    expect(kv?.data).toMatchObject({
      max_model_len: 32768,
      bytes_per_token: 147456,
      required_bytes: 6 * 2 ** 30,
      pinned_bytes: 2 * 2 ** 30,
    });
    // The compose file and the env file it loads now say different things: drift, at the compose line.
    expect(found.find((f) => f.rule === "playbook/drift")).toMatchObject({
      file: CF,
      line: 10,
      data: { key: "--max-model-len", playbook_value: "32768", committed_value: "8192" },
    });
  });

  test("a device_ids move onto a full card fails gpu/fits at the device_ids line", async () => {
    const found = await runCase({ name: "move", files: repo(8192, 0), beforeFiles: repo(8192, 1) });
    const fits = found.find((f) => f.rule === "gpu/fits");
    expect(fits).toMatchObject({ file: CF, line: 22, severity: "error" });
    expect(fits?.data).toMatchObject({ host: "fv-ml1", gpu: 0, total_bytes: 96 * 2 ** 30, reserve_bytes: 2 ** 30 });
    expect((fits?.data as { spare_bytes: number }).spare_bytes).toBeLessThan(0);
    expect(rules(found)).not.toContain("compose/unresolved");
  });
});

// Issue 24 item 10: a compose file gets "new issues only" as an env file does. The committed file
// already holds errors of several kinds: a seat short of KV, drift from the env file it loads, a
// variable nobody defines in a sizing flag. A comment-only edit adds none of them; an edit of one
// service answers for that service only.
describe("a compose file already broken at HEAD: a change answers for what it adds", () => {
  const broken = (extra = "", len = 32768) => ({
    "kvgate.yaml": config,
    "scripts/coder.env": env,
    [CF]:
      compose(len, 1).replace("services:\n", `services:\n${extra}`) +
      lines(
        "  chat:",
        "    image: vllm/vllm-openai:v0.10.2",
        '    command: ["Qwen/Qwen3-0.6B", "--max-model-len", "${CHAT_LEN}", "--override-generation-config", \'{"max_new_tokens":1024}\']',
        '    deploy: { resources: { reservations: { devices: [ { driver: nvidia, device_ids: ["1"], capabilities: [gpu] } ] } } }',
      ),
  });
  const errorsOf = <F extends { severity: string; status: string }>(fs: F[]) =>
    fs.filter((f) => f.severity === "error" && f.status === "open");

  test("the whole tree shows the old errors", async () => {
    const all = await runCase({ name: "all", files: broken() });
    expect(rules(errorsOf(all))).toEqual(expect.arrayContaining(["kv/covers-context", "gpu/fits", "kv/boot-check"]));
    expect(rules(all)).toEqual(expect.arrayContaining(["playbook/drift", "compose/unresolved"]));
  });

  test("a comment-only edit is not refused with the file's old errors", async () => {
    const found = await runCase({ name: "comment", files: broken("  # the proxy moves next week\n"), beforeFiles: broken() });
    expect(found).toEqual([]);
  });

  test("an edit of one service answers for that service only", async () => {
    const found = await runCase({ name: "one", files: broken("", 40960), beforeFiles: broken() });
    expect(errorsOf(found).map((f) => [f.rule, f.service])).toEqual([["kv/covers-context", "coder"]]);
    expect(found.map((f) => f.service)).not.toContain("chat");
  });
});
