import { engineFlagAlias } from "../../../src/checks/engine-flag-alias.js";
import { ruleTester } from "../../helpers/rule-tester.js";

export default ruleTester(engineFlagAlias, {
  valid: [{ name: "the canonical flag", files: { "scripts/v.env": 'ENGINE=vllm\nSERVE_ARGS="--kv-cache-memory-bytes 8053063680"\n' } }],
  invalid: [
    {
      name: "--kv-cache-memory warns and names the canonical flag",
      files: { "scripts/v.env": 'ENGINE=vllm\nSERVE_ARGS="--kv-cache-memory 8053063680"\n' },
      findings: [{ severity: "warning", message: "v: --kv-cache-memory is an alias; write --kv-cache-memory-bytes" }],
    },
  ],
});
