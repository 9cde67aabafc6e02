import { radiancePoolStep } from "../../../src/checks/radiance-pool-step.js";
import { ruleTester } from "../../helpers/rule-tester.js";
import { frankState, radianceCase } from "../../radiance/fixtures.js";

const change = (pool: string, why: string) =>
  radianceCase(`HOST_POOL_MIB 44,928 → ${pool}${why}`, { before: frankState(), after: frankState({ HOST_POOL_MIB: pool }) });

export default ruleTester(radiancePoolStep, {
  valid: [
    change("45952", " (+1,024)"),
    change("46976", " (+2,048)"),
    change("43904", " (−1,024)"),
    radianceCase("a pool with no before (--all, new service) is not judged", {
      before: null,
      after: frankState({ HOST_POOL_MIB: "45928" }),
    }),
  ],
  invalid: [
    {
      ...change("45928", ""),
      findings: [{ data: { change_mib: 1000, suggested_mib: 45952, host_pool_before_mib: 44928, pool_step_mib: 1024 } }],
    },
    {
      ...change("44000", ""),
      findings: [{ data: { change_mib: -928, suggested_mib: 43904, host_pool_before_mib: 44928, pool_step_mib: 1024 } }],
    },
  ],
});
