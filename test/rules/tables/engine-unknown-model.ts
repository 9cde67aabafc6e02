import { expect } from "vitest";
import { engineUnknownModel } from "../../../src/checks/engine-unknown-model.js";
import { ruleTester } from "../../helpers/rule-tester.js";
import { kvCase, policyOf, seat, voices } from "../../kv/fixtures.js";

const tiny = policyOf({ models: { "nobody/unknown-1b": { layers: 2, kv_heads: 2, head_dim: 64, max_context: 4096, weights: "1GiB" } } });

export default ruleTester(engineUnknownModel, {
  valid: [
    kvCase("a model of the catalog", [voices()]),
    kvCase("a model kvgate.yaml adds", [seat("x", { MODEL: "nobody/unknown-1b" })], { policy: tiny }),
    kvCase("an unknown model with KV_BYTES_PER_TOKEN", [seat("x", { MODEL: "nobody/unknown-1b", KV_BYTES_PER_TOKEN: "1000" })]),
  ],
  invalid: [
    {
      ...kvCase("a model the catalog does not know, saying how to add it", [seat("x", { MODEL: "nobody/unknown-1b" })]),
      findings: [{ messageId: "unknown", line: 4, message: expect.stringContaining("add it under models: in kvgate.yaml") }],
    },
    { ...kvCase("a seat with no model at all", [seat("x", {})]), findings: [{ messageId: "none" }] },
  ],
});
