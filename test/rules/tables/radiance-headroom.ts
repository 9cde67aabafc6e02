import { expect } from "vitest";
import { radianceHeadroom } from "../../../src/checks/radiance-headroom.js";
import { exact, ruleTester } from "../../helpers/rule-tester.js";
import { frankState, radianceCase } from "../../radiance/fixtures.js";

const at = (h: string) => radianceCase(`GPU_HEADROOM_MIB ${h}`, { before: null, after: frankState({ GPU_HEADROOM_MIB: h }) });

export default ruleTester(radianceHeadroom, {
  valid: [at("96"), at("48")],
  invalid: ["47", "32"].map((h) => ({
    ...at(h),
    findings: [
      {
        data: exact({
          gpu_headroom_mib: Number(h),
          headroom_floor_mib: 48,
          key: "GPU_HEADROOM_MIB",
          fix: { file: "scripts/frank-archon.env", line: 6, key: "GPU_HEADROOM_MIB", value: "48" },
        }),
        line: 6,
        message: expect.stringContaining("set GPU_HEADROOM_MIB=48 or more"),
      },
    ],
  })),
});
