import { expect } from "vitest";
import { radianceFunding } from "../../../src/checks/radiance-funding.js";
import { exact, ruleTester } from "../../helpers/rule-tester.js";
import { frankState, radianceCase } from "../../radiance/fixtures.js";

const change = (name: string, over: Record<string, string | undefined>) =>
  radianceCase(name, { before: frankState(), after: frankState(over) });

export default ruleTester(radianceFunding, {
  valid: [change("nothing the funding reads moves (TTM_TARGET_MIB)", { TTM_TARGET_MIB: "99840" })],
  invalid: [
    {
      ...change("the move of a headroom change, before → after", { GPU_HEADROOM_MIB: "48" }),
      findings: [
        {
          data: {
            tokens: 180096,
            demand_tokens: 196608,
            budget_card: 0,
            before: { tokens: 179408, demand_tokens: 196608 },
            funded: expect.closeTo(180096 / 196608, 10),
          },
          message: "funds 180,096 of 196,608 tokens of demand (91.6 %); card 0 is the budget; was 179,408 of 196,608 (91.3 %)",
          line: 6,
        },
      ],
    },
    {
      ...radianceCase("where a new endpoint stands", { before: null, after: frankState() }),
      findings: [{ messageId: "funding", data: { tokens: 179408 } }],
    },
    {
      ...radianceCase("which settings it lacks", { before: null, after: frankState({ MAX_MODEL_LEN: undefined }) }),
      findings: [{ messageId: "inputs", data: exact({ missing: ["MAX_MODEL_LEN"] }) }],
    },
  ],
});
