import { k8sUnknownCard } from "../../../src/checks/k8s-unknown-card.js";
import { ruleTester } from "../../helpers/rule-tester.js";
import { deployment } from "../../kubernetes/manifests.js";

const F = "k8s/chat.yaml";

export default ruleTester(k8sUnknownCard, {
  valid: [
    { name: "a product label rules/cards.yaml knows", files: { [F]: deployment({ product: "NVIDIA-L4" }) } },
    {
      name: "no label, but kvgate.yaml lists one pool: the pods land there",
      files: { [F]: deployment({ product: null }), "kvgate.yaml": "fleet:\n  pools:\n    gpu: { card: NVIDIA-L4, count: 4 }\n" },
    },
    {
      name: "a product the table lacks, named as a pool with its figure",
      files: {
        [F]: deployment({ product: "NVIDIA-RTX-PRO-6000" }),
        "kvgate.yaml": "fleet:\n  pools:\n    NVIDIA-RTX-PRO-6000: { cuda_total_mib: 97887 }\n",
      },
    },
  ],
  invalid: [
    {
      name: "no pool named: refused, at the line that places the pods",
      files: { [F]: deployment({ product: null, replicas: 2 }) },
      findings: [
        {
          file: F,
          line: 10,
          severity: "error",
          service: "chat-0",
          message:
            "chat (2 replicas): its card is unknown, so its KV and card fit cannot be checked: its pods name no GPU pool: add a nodeSelector nvidia.com/gpu.product (a card of rules/cards.yaml), or a fleet.pools entry in kvgate.yaml and a nodeSelector naming it",
        },
      ],
    },
    {
      name: "a product rules/cards.yaml does not know",
      files: { [F]: deployment({ product: "NVIDIA-RTX-PRO-6000" }) },
      findings: [
        {
          line: 10,
          message:
            "chat: its card is unknown, so its KV and card fit cannot be checked: nvidia.com/gpu.product: NVIDIA-RTX-PRO-6000 is not a card in rules/cards.yaml: add a fleet.pools entry named NVIDIA-RTX-PRO-6000 with its cuda_total_mib",
        },
      ],
    },
  ],
});
