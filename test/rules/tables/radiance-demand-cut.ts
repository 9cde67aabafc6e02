import { expect } from "vitest";
import { radianceDemandCut } from "../../../src/checks/radiance-demand-cut.js";
import { ruleTester } from "../../helpers/rule-tester.js";
import { frankState, radianceCase } from "../../radiance/fixtures.js";

export default ruleTester(radianceDemandCut, {
  valid: [
    radianceCase("raising demand", { before: frankState(), after: frankState({ MAX_SEQS: "9" }) }),
    radianceCase("cutting a fully funded endpoint", {
      before: frankState({ MAX_MODEL_LEN: "8192" }),
      after: frankState({ MAX_MODEL_LEN: "4096" }),
    }),
  ],
  invalid: [
    {
      ...radianceCase("an under-funded endpoint cuts demand", { before: frankState(), after: frankState({ MAX_SEQS: "7" }) }),
      findings: [
        {
          data: {
            tokens: 179408,
            demand_tokens: 196608,
            cuts: [{ knob: "MAX_SEQS", before: 8, after: 7 }],
            pool_for_full_funding_mib: 1209,
            funded: expect.closeTo(0.9125, 4),
            fix: { key: "MAX_SEQS", value: "8" },
          },
          message: expect.stringContaining(
            "demand is not the lever; keep the demand (MAX_SEQS=8) and raise HOST_POOL_MIB in 1,024-MiB steps",
          ),
        },
      ],
    },
  ],
});
