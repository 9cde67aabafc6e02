import { ttmLedger } from "../../../src/checks/ttm-ledger.js";
import { ruleTester } from "../../helpers/rule-tester.js";
import { frankState, radianceCase } from "../../radiance/fixtures.js";

const all = (name: string, over: Record<string, string | undefined>) => radianceCase(name, { before: null, after: frankState(over) });

export default ruleTester(ttmLedger, {
  valid: [
    all("TTM_MIN_MIB 97,792 covers 97,791.68", {}),
    all("TTM_MIN_MIB unset without a host pool", { TTM_MIN_MIB: undefined, HOST_POOL_MIB: undefined }),
  ],
  invalid: [
    { ...all("TTM_MIN_MIB 97,791 does not", { TTM_MIN_MIB: "97791" }), findings: [{ messageId: "below" }] },
    { ...all("TTM_MIN_MIB unset with a host pool", { TTM_MIN_MIB: undefined }), findings: [{ messageId: "unset" }] },
    {
      ...all("the numbers and the fix", { HOST_POOL_MIB: "45952" }),
      findings: [
        {
          data: {
            ledger_mib: 99839.68,
            required_mib: 99840,
            ttm_min_mib: 97792,
            ttm_target_mib: 98816,
            // 98,816 < 99,840 + 1,024 slack: the floor alone would leave ttm/target refusing, so both go.
            fix: { key: "TTM_MIN_MIB", value: "99840", line: 14 },
            fixes: [
              { key: "TTM_MIN_MIB", value: "99840" },
              { key: "TTM_TARGET_MIB", value: "100864" },
            ],
          },
          line: 14,
          message:
            "TTM_MIN_MIB 97,792 is below the pin ledger 99,839.68 MiB (2 × 45,952 pool + 0 PLE + 4,096 prefix + 2,048 statics + 16 slots (auto: 8 × (1 + 1)) × 111.98): set TTM_MIN_MIB=99840 and TTM_TARGET_MIB=100864 (or more)",
        },
      ],
    },
  ],
});
