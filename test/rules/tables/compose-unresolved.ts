import { expect } from "vitest";
import { composeUnresolved } from "../../../src/checks/compose-unresolved.js";
import { ruleTester } from "../../helpers/rule-tester.js";

const lines = (...l: string[]): string => l.join("\n") + "\n";
const CF = "deploy/compose.yaml";
const env = lines("ENGINE=vllm", "GPU=0", "MODEL=Qwen/Qwen3-8B", "MAX_MODEL_LEN=8192", "KV_CACHE_MEMORY_BYTES=2GiB");
const seat = (len: string) =>
  lines(
    "services:",
    "  coder:",
    "    image: vllm/vllm-openai:v0.10.2",
    "    env_file: ../scripts/coder.env",
    `    command: --model Qwen/Qwen3-8B --max-model-len ${len}`,
  );

export default ruleTester(composeUnresolved, {
  valid: [
    {
      name: "${VAR:-default} resolves to its default",
      files: { "scripts/coder.env": env, [CF]: seat("${LEN:-8192}") },
      beforeFiles: { "scripts/coder.env": env },
    },
    {
      name: "${VAR} set in the .env beside the file resolves",
      files: { "scripts/coder.env": env, [CF]: seat("${LEN}"), "deploy/.env": "LEN=8192\n" },
      beforeFiles: { "scripts/coder.env": env },
    },
    {
      name: "a sidecar (no env file, no GPU, no engine) is not gated: its unresolved value is no notice",
      files: { [CF]: lines("services:", "  proxy:", "    image: nginx:1.27", "    environment:", "      UPSTREAM: ${UPSTREAM}") },
      beforeFiles: {},
    },
  ],
  invalid: [
    {
      name: "${VAR} the .env does not set: a notice at its line, naming the service, the key and the fix",
      files: { "scripts/coder.env": env, [CF]: seat("${LEN}") },
      beforeFiles: { "scripts/coder.env": env },
      findings: [
        {
          file: CF,
          line: 5,
          service: "coder",
          severity: "notice",
          data: { key: "COMMAND" },
          message: expect.stringContaining("${LEN} is not set in the .env beside the compose file"),
        },
      ],
    },
    {
      name: "a bare environment key takes its value from the host's shell: a notice",
      files: {
        "scripts/coder.env": env,
        [CF]: lines("services:", "  coder:", "    env_file: ../scripts/coder.env", "    environment:", "      - MAX_MODEL_LEN"),
      },
      beforeFiles: { "scripts/coder.env": env },
      findings: [{ file: CF, line: 5, service: "coder", data: { key: "MAX_MODEL_LEN" } }],
    },
  ],
});
