import { expect } from "vitest";
import { knobKvAndPlacement } from "../../../src/checks/knob-kv-and-placement.js";
import { exact, ruleTester } from "../../helpers/rule-tester.js";
import { frankState, policyOf, radianceCase } from "../../radiance/fixtures.js";

const noEnforce = policyOf({ knobs: { enforce: [] } });
const change = (name: string, over: Record<string, string>, policy = noEnforce) =>
  radianceCase(name, { before: frankState(), after: frankState(over), policy });
const found = (kv: { knob: string; before: string; after: string }) => ({
  data: exact({ kv: [kv], placement: { before: "heat", after: "static" } }),
  line: 10,
  message: expect.stringContaining("deploy them separately"),
});

export default ruleTester(knobKvAndPlacement, {
  valid: [
    change("PLACEMENT alone", { PLACEMENT: "static" }),
    change("PREFIX_CACHE_MIB and PLACEMENT (host RAM, not the KV pool)", { PREFIX_CACHE_MIB: "8192", PLACEMENT: "static" }),
  ],
  invalid: [
    {
      ...change("HOST_POOL_MIB and PLACEMENT", { HOST_POOL_MIB: "45952", PLACEMENT: "static" }),
      findings: [found({ knob: "HOST_POOL_MIB", before: "44,928", after: "45,952" })],
    },
    {
      ...change("MAX_SEQS and PLACEMENT", { MAX_SEQS: "9", PLACEMENT: "static" }),
      findings: [found({ knob: "MAX_SEQS", before: "8", after: "9" })],
    },
    {
      ...change("whatever knobs.enforce says (radiance enforced by default)", { HOST_POOL_MIB: "45952", PLACEMENT: "static" }, policyOf()),
      findings: [{}],
    },
  ],
});
