import { fleetTpMismatch } from "../../../src/checks/fleet-tp-mismatch.js";
import { ruleTester } from "../../helpers/rule-tester.js";
import { FLEET_H } from "../fixtures.js";

export default ruleTester(fleetTpMismatch, {
  valid: [
    { name: "TP=2 on two cards", files: { "kvgate.yaml": FLEET_H, "scripts/v.env": "ENGINE=vllm\nHOST=h\nGPU=0,1\nTP=2\n" } },
    {
      name: "TP=1 × PP=2 on two cards (each pipeline stage takes a card)",
      files: { "kvgate.yaml": FLEET_H, "scripts/v.env": "ENGINE=vllm\nHOST=h\nGPU=0,1\nVLLM_ARGS=--pipeline-parallel-size 2\n" },
    },
    { name: "TP=1 on one card", files: { "kvgate.yaml": FLEET_H, "scripts/v.env": "ENGINE=vllm\nHOST=h\nGPU=1\n" } },
  ],
  invalid: [
    {
      name: "TP=2 on one listed card is an error at the GPU line",
      files: { "kvgate.yaml": FLEET_H, "scripts/v.env": "ENGINE=vllm\nHOST=h\nGPU=0\nTP=2\n" },
      findings: [{ line: 3, message: "v: TP=2 needs 2 cards, but GPU lists 1 (0); list 2 cards in GPU, or set TP=1" }],
    },
    {
      name: "PP=2 with TP=1 on one card: 2 ranks, 1 card",
      files: { "kvgate.yaml": FLEET_H, "scripts/v.env": "ENGINE=vllm\nHOST=h\nGPU=0\nPP=2\n" },
      findings: [
        {
          messageId: "pipeline",
          line: 3,
          message: "v: TP=1 × PP=2 needs 2 cards, but GPU lists 1 (0); list 2 cards in GPU",
          data: { tp: 1, pp: 2, cards: 2, count: 1 },
        },
      ],
    },
  ],
});
