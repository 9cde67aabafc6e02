import { radianceLedgerFacts } from "../../../src/checks/radiance-ledger-facts.js";
import { exact, ruleTester } from "../../helpers/rule-tester.js";
import { factsYaml, frank, frankState, ledgerOf, radianceCase, state } from "../../radiance/fixtures.js";

const bad = ledgerOf("frank-archon", factsYaml().replace("plane_mib: 45700", "plane_mib: lots").replace("block_size: 16\n", ""));
const oneCard = ledgerOf("frank-archon", factsYaml().replace(/ {2}- \{ index: 1[\s\S]*?9800 \}\n/, ""));
const noFacts = state([frank()]);

export default ruleTester(radianceLedgerFacts, {
  valid: [
    radianceCase("a good facts file", { before: null, after: frankState() }),
    radianceCase("a missing facts file when the endpoint is not in the change", { before: noFacts, after: noFacts, files: ["README.md"] }),
  ],
  invalid: [
    {
      ...radianceCase("each problem of a malformed facts file at its line", {
        before: null,
        after: state([frank()], { "frank-archon": bad }),
      }),
      findings: [
        { file: "scripts/frank-archon.ledger.yaml", line: 2, data: { path: "block_size" } },
        {
          file: "scripts/frank-archon.ledger.yaml",
          line: 7,
          data: { path: "plane_mib" },
          message: 'ledger facts: plane_mib must be a number (MiB: the expert plane), got "lots"',
        },
      ],
    },
    {
      ...radianceCase("a card per GPU of the endpoint", { before: null, after: state([frank()], { "frank-archon": oneCard }) }),
      findings: [{ messageId: "cards", data: exact({ cards: 1, expected: 2, from: "GPU=0,1" }) }],
    },
    {
      // The before state had its facts file: the missing one is the change's (a finding the before
      // state already had is not reported).
      ...radianceCase("a missing facts file when the endpoint is in the change, as a notice", { before: frankState(), after: noFacts }),
      findings: [{ messageId: "missing", severity: "notice", data: exact({ file: "scripts/frank-archon.ledger.yaml" }) }],
    },
  ],
});
