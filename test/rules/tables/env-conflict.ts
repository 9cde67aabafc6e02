import { envConflict } from "../../../src/checks/env-conflict.js";
import { ruleTester } from "../../helpers/rule-tester.js";
import { FLEET_H, radianceEnv } from "../fixtures.js";

export default ruleTester(envConflict, {
  valid: [
    {
      name: "the same value in both places",
      files: { "kvgate.yaml": FLEET_H, "scripts/r.env": radianceEnv('MAX_SEQS=8\nRADIANCE_ARGS="--max-num-seqs=8"') },
    },
  ],
  invalid: [
    {
      name: "env key and flag differ: the flag wins, a warning at the flag's line",
      files: { "kvgate.yaml": FLEET_H, "scripts/r.env": radianceEnv('MAX_SEQS=8\nRADIANCE_ARGS="--max-num-seqs 16"') },
      findings: [
        { line: 5, message: "r: --max-num-seqs 16 wins over MAX_SEQS=8 (line 4); remove one of them so the file says one number" },
      ],
    },
  ],
});
