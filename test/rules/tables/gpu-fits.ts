import { expect } from "vitest";
import { gpuFits } from "../../../src/checks/gpu-fits.js";
import { ruleTester } from "../../helpers/rule-tester.js";
import { GiB, kvCase, seat, tenant, voices } from "../../kv/fixtures.js";

const seats = (names: string[]) =>
  names.map((n) => seat(n, { MODEL: "Qwen/Qwen3-8B", MAX_MODEL_LEN: "40960", KV_CACHE_MEMORY_BYTES: "8053063680" }));
// 3 × (15.3 + 7.5 + 2) GiB + 22 GiB tenant = 96.4 GiB > 95 GiB
const used = 3 * (Math.round(15.3 * GiB) + 7.5 * GiB + 2 * GiB) + 22 * GiB;

export default ruleTester(gpuFits, {
  valid: [
    kvCase("a card with room", [voices()], { tenants: [tenant("t", 0, 22 * GiB)] }),
    kvCase("a radiance card is left to section 6", [...seats(["a", "b", "c", "d"]), seat("r", { ENGINE: "radiance" })]),
  ],
  invalid: [
    {
      ...kvCase("a card whose footprints exceed total − reserve", seats(["a", "b", "c"]), { tenants: [tenant("t", 0, 22 * GiB)] }),
      findings: [
        {
          data: { host: "fv-ml1", gpu: 0, total_bytes: 96 * GiB, used_bytes: used, spare_bytes: 95 * GiB - used },
          message: expect.stringMatching(/^fv-ml1 gpu 0: footprints 96.4 GiB > 95 GiB/),
        },
      ],
    },
  ],
});
