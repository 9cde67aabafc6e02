import { ttmLedger } from "../../../src/checks/ttm-ledger.js";
import { ruleTester } from "../../helpers/rule-tester.js";
import { frankState, radianceCase } from "../../radiance/fixtures.js";

const all = (name: string, over: Record<string, string | undefined>) => radianceCase(name, { before: null, after: frankState(over) });

export default ruleTester(ttmLedger, {
  valid: [all("TTM_MIN_MIB 97,792 covers 97,791.68", {}), all("TTM_MIN_MIB unset without a host pool", { TTM_MIN_MIB: undefined, HOST_POOL_MIB: undefined })],
  invalid: [
    { ...all("TTM_MIN_MIB 97,791 does not", { TTM_MIN_MIB: "97791" }), findings: [{ messageId: "below" }] },
    { ...all("TTM_MIN_MIB unset with a host pool", { TTM_MIN_MIB: undefined }), findings: [{ messageId: "unset" }] },
    {
      ...all("the numbers and the fix", { HOST_POOL_MIB: "45952" }),
      findings: [{
        data: { ledger_mib: 99839.68, required_mib: 99840, ttm_min_mib: 97792, ttm_target_mib: 98816 },
        line: 14,
        message:
          "TTM_MIN_MIB 97,792 is below the pin ledger 99,839.68 MiB (2 × 45,952 pool + 0 PLE + 4,096 prefix + 2,048 statics + 16 slots (auto: 8 × (1 + 1)) × 111.98): set TTM_MIN_MIB to 99,840 or more (and TTM_TARGET_MIB to 100,864 or more)",
      }],
    },
  ],
});
