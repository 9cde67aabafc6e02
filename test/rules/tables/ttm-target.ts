import { expect } from "vitest";
import { ttmTarget } from "../../../src/checks/ttm-target.js";
import { ruleTester } from "../../helpers/rule-tester.js";
import { frankState, radianceCase } from "../../radiance/fixtures.js";

const target = (name: string, value: string) =>
  radianceCase(`TTM_TARGET_MIB ${name}`, { before: null, after: frankState({ TTM_TARGET_MIB: value }) });

export default ruleTester(ttmTarget, {
  valid: [target("98,816 = 97,792 + 1,024 slack", "98816")],
  invalid: [
    {
      ...target("98,815", "98815"),
      findings: [
        {
          data: { ttm_min_mib: 97792, ttm_target_mib: 98815, target_required_mib: 98816, ledger_mib: 97791.68 },
          message: expect.stringContaining("set TTM_TARGET_MIB=98816 or more"),
        },
      ],
    },
  ],
});
