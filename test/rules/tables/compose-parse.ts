import { expect } from "vitest";
import { composeParse } from "../../../src/checks/compose-parse.js";
import { ruleTester } from "../../helpers/rule-tester.js";

const lines = (...l: string[]): string => l.join("\n") + "\n";
const CF = "hosts/fv-ml1/compose.yaml";
const env = lines("ENGINE=vllm", "GPU=0", "MODEL=Qwen/Qwen3-8B", "MAX_MODEL_LEN=8192", "KV_CACHE_MEMORY_BYTES=2GiB");
const good = lines("services:", "  coder:", "    image: vllm/vllm-openai:v0.10.2", "    env_file: ../../scripts/coder.env");

export default ruleTester(composeParse, {
  valid: [
    {
      name: "a compose file docker compose loads",
      files: { "scripts/coder.env": env, [CF]: good },
      beforeFiles: { "scripts/coder.env": env },
    },
    {
      name: "valid YAML that is no compose file (no services, no include) is not a finding",
      files: { "deploy/compose.notes.yaml": lines("owner: ops", "hosts: [fv-ml1]") },
      beforeFiles: {},
    },
    {
      name: "an unchanged broken compose file is not this change's finding",
      files: { [CF]: lines("services:", "  a: [", "scripts/x.env"), "scripts/coder.env": env },
      beforeFiles: { [CF]: lines("services:", "  a: [", "scripts/x.env"), "scripts/coder.env": lines("ENGINE=vllm") },
    },
  ],
  invalid: [
    {
      name: "a YAML error (a key given twice): an error at its line, naming the file",
      files: {
        [CF]: lines("services:", "  coder:", "    image: vllm/vllm-openai", "    image: vllm/vllm-openai:v0.10.2"),
        "scripts/coder.env": env,
      },
      beforeFiles: { "scripts/coder.env": env },
      findings: [
        {
          file: CF,
          line: 4,
          severity: "error",
          message:
            'image is defined twice in the same mapping (lines 3 and 4); docker compose refuses the file ("mapping key "image" already defined at line 3"): delete one; kvgate cannot size what it deploys until it parses',
        },
      ],
    },
    {
      name: "a YAML syntax error: at the line YAML finds it (an unclosed quote: the line it runs into)",
      files: { [CF]: lines("services:", "  coder:", '    image: "vllm/vllm-openai', "    gpus: all") },
      beforeFiles: {},
      findings: [{ file: CF, line: 4, message: expect.stringMatching(/^hosts\/fv-ml1\/compose\.yaml is not valid YAML: /) }],
    },
    {
      name: "a compose file that is not text: line 1",
      files: { [CF]: "services:\n  a:\0\n" },
      beforeFiles: {},
      findings: [{ file: CF, line: 1, message: expect.stringContaining("NUL byte") }],
    },
    {
      name: "an extends cycle, at the extends that closes it",
      files: {
        [CF]: lines("services:", "  a:", "    extends: b", "    image: vllm/vllm-openai", "  b:", "    extends: a", "    gpus: all"),
      },
      beforeFiles: {},
      findings: [{ file: CF, line: 6, message: expect.stringContaining("extends cycle") }],
    },
    {
      name: "an include of a file not in the repository",
      files: { [CF]: lines("include:", "  - ../common/seats.yaml", "services:", "  coder:", "    image: vllm/vllm-openai") },
      beforeFiles: {},
      findings: [{ file: CF, line: 2, message: expect.stringContaining("hosts/common/seats.yaml is not in the repository") }],
    },
    {
      name: "a change to the .env beside the compose file makes it this change's (a broken compose file under --all too)",
      files: { [CF]: lines("services:", "  coder: 7"), "hosts/fv-ml1/.env": "TAG=v1\n" },
      beforeFiles: { [CF]: lines("services:", "  coder: 7") },
      findings: [{ file: CF, line: 2, message: expect.stringContaining("services.coder must be a mapping") }],
    },
  ],
});
