import { k8sPoolCapacity } from "../../../src/checks/k8s-pool-capacity.js";
import { ruleTester } from "../../helpers/rule-tester.js";
import { deployment, TIME_SLICED } from "../../kubernetes/manifests.js";

const F = "k8s/chat.yaml";
const pool = (count: number) => `fleet:\n  pools:\n    l4: { card: NVIDIA-L4, count: ${count} }\n`;
const small = ["Qwen/Qwen3-8B", "--max-model-len", '"4096"', "--gpu-memory-utilization", '"0.2"'];

export default ruleTester(k8sPoolCapacity, {
  valid: [
    { name: "two pods on a pool of two cards", files: { [F]: deployment({ product: "l4", replicas: 2 }), "kvgate.yaml": pool(2) } },
    {
      name: "four pods on one time-sliced card (×4)",
      files: { [F]: deployment({ product: "l4", replicas: 4, args: small }), "kvgate.yaml": pool(1), "k8s/ts.yaml": TIME_SLICED },
    },
  ],
  invalid: [
    {
      name: "three pods on a pool of two cards: the third stays Pending, at the replicas line",
      files: { [F]: deployment({ product: "l4", replicas: 3 }), "kvgate.yaml": pool(2) },
      findings: [
        {
          file: F,
          line: 6,
          severity: "error",
          message:
            "chat: chat-2 stays Pending: k8s:l4 has 2 cards, all held by chat-0, chat-1; lower the replicas, or raise fleet.pools count if the pool has more cards",
        },
      ],
    },
    {
      name: "five pods on one card time-sliced ×4",
      files: { [F]: deployment({ product: "l4", replicas: 5, args: small }), "kvgate.yaml": pool(1), "k8s/ts.yaml": TIME_SLICED },
      findings: [
        {
          line: 6,
          message:
            "chat: chat-4 stays Pending: k8s:l4 has 1 card (shared ×4: 4 pods), all held by chat-0, chat-1, chat-2, chat-3; lower the replicas, or raise fleet.pools count if the pool has more cards",
        },
      ],
    },
  ],
});
