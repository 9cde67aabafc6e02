import { expect } from "vitest";
import { systemdUnresolved } from "../../../src/checks/systemd-unresolved.js";
import { ruleTester } from "../../helpers/rule-tester.js";
import { FLEET_H } from "../fixtures.js";

const unit = (extra: string) =>
  `[Service]\n${extra}ExecStart=/usr/bin/docker run --gpus device=0 vllm/vllm-openai:v0.11.0 --model Qwen/Qwen3-0.6B --max-model-len 8192\n`;

export default ruleTester(systemdUnresolved, {
  valid: [
    { name: "a unit with every value written", files: { "kvgate.yaml": FLEET_H, "units/chat.service": unit("Environment=HOST=h\n") } },
    {
      name: "an optional EnvironmentFile (-) outside the repository",
      files: { "kvgate.yaml": FLEET_H, "units/chat.service": unit("EnvironmentFile=-/etc/default/vllm\n") },
    },
  ],
  invalid: [
    {
      name: "an EnvironmentFile= the repository does not have",
      files: { "kvgate.yaml": FLEET_H, "units/chat.service": unit("EnvironmentFile=/etc/vllm/chat.env\n") },
      findings: [
        { line: 2, severity: "notice", message: expect.stringContaining("EnvironmentFile=/etc/vllm/chat.env is not in the repository") },
      ],
    },
    {
      name: "a template unit's %i specifier in the command",
      files: {
        "kvgate.yaml": FLEET_H,
        "units/vllm@.service": "[Service]\nExecStart=/usr/bin/docker run --gpus device=0 vllm/vllm-openai:v0.11.0 --model %i\n",
      },
      findings: [{ line: 2, message: expect.stringContaining("ExecStart uses a specifier or variable (%i, $VAR)") }],
    },
  ],
});
