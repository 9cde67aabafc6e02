import { expect } from "vitest";
import { systemdParse } from "../../../src/checks/systemd-parse.js";
import { ruleTester } from "../../helpers/rule-tester.js";
import { FLEET_H } from "../fixtures.js";

const UNIT =
  "[Unit]\nDescription=chat\n\n[Service]\nExecStart=/usr/bin/docker run --gpus device=0 vllm/vllm-openai:v0.11.0 --model Qwen/Qwen3-0.6B\n";

export default ruleTester(systemdParse, {
  valid: [
    { name: "a unit systemd reads", files: { "kvgate.yaml": FLEET_H, "units/chat.service": UNIT } },
    {
      name: "a unit that runs no engine is not the fleet's, whatever it holds",
      files: { "units/sshd.service": "garbage\n[Service]\nExecStart=/usr/sbin/sshd -D\n" },
    },
  ],
  invalid: [
    {
      name: "a line outside any [Section] in an engine's unit",
      files: { "kvgate.yaml": FLEET_H, "units/chat.service": `Description=chat\n${UNIT}` },
      findings: [{ file: "units/chat.service", line: 1, message: expect.stringContaining("line 1 is outside any [Section]") }],
    },
    {
      name: "an ExecStart with an unclosed quote",
      files: {
        "kvgate.yaml": FLEET_H,
        "units/chat.service": `${UNIT.replace("--model", '--override-generation-config \'{"a":1} --model')}`,
      },
      findings: [{ file: "units/chat.service", line: 5, message: expect.stringContaining("ExecStart cannot be split into words") }],
    },
  ],
});
