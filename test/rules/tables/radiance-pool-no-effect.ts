import { expect } from "vitest";
import { radiancePoolNoEffect } from "../../../src/checks/radiance-pool-no-effect.js";
import { ruleTester } from "../../helpers/rule-tester.js";
import { frankState, radianceCase } from "../../radiance/fixtures.js";

const change = (name: string, before: Record<string, string>, after: Record<string, string>) =>
  radianceCase(name, { before: frankState(before), after: frankState(after) });

export default ruleTester(radiancePoolNoEffect, {
  valid: [
    change("the pool buys cache", {}, { HOST_POOL_MIB: "45952" }),
    change("the pool buys cache, with another knob in the unit", {}, { HOST_POOL_MIB: "45952", GPU_HEADROOM_MIB: "48" }),
  ],
  invalid: [
    {
      // the floor reaches 0 at 47,100; 48,128 → 49,152 buys nothing
      ...change("the host already holds the whole plane", { HOST_POOL_MIB: "48128" }, { HOST_POOL_MIB: "49152" }),
      findings: [
        {
          data: { reason: "plane-on-host", useful_pool_mib: 47100, expert_floor_mib: 0, host_pool_before_mib: 48128, host_pool_mib: 49152 },
          message: expect.stringContaining("the host already holds the whole plane (the expert floor is 0 from HOST_POOL_MIB 47,100)"),
        },
      ],
    },
    {
      ...change("kv is already at kv_cap", { MAX_MODEL_LEN: "8192" }, { MAX_MODEL_LEN: "8192", HOST_POOL_MIB: "45952" }),
      findings: [{ data: { reason: "demand-met" } }],
    },
    {
      ...change(
        "the pool judged alone: a headroom cut in the same unit cannot hide it",
        { HOST_POOL_MIB: "48128" },
        { HOST_POOL_MIB: "49152", GPU_HEADROOM_MIB: "48" },
      ),
      findings: [{}],
    },
  ],
});
