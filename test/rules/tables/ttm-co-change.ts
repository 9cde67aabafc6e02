import { ttmCoChange } from "../../../src/checks/ttm-co-change.js";
import { ruleTester } from "../../helpers/rule-tester.js";
import { frankState, policyOf, radianceCase } from "../../radiance/fixtures.js";

const guards = policyOf({ ttm: { guards: ["test/ttm-ledger.bats"] } });
const raised = { HOST_POOL_MIB: "45952" };
const fixed = { HOST_POOL_MIB: "45952", TTM_MIN_MIB: "99840", TTM_TARGET_MIB: "100864" };
const ENV = ["scripts/frank-archon.env"];
const change = (name: string, over: Record<string, string>, files: string[], withGuards: boolean) =>
  radianceCase(name, { before: frankState(), after: frankState(over), files, policy: withGuards ? guards : policyOf() });

export default ruleTester(ttmCoChange, {
  valid: [
    change("the pool and TTM_MIN_MIB rise together", fixed, ENV, false),
    change("TTM_MIN_MIB and the guard move with the pool", fixed, [...ENV, "test/ttm-ledger.bats"], true),
    change("nothing the ledger reads changes", { GPU_HEADROOM_MIB: "48" }, ENV, false),
    radianceCase("nothing under --all", { before: null, after: frankState(raised) }),
    radianceCase("nothing for a new service", { before: { ...frankState(), services: [] }, after: frankState(raised) }),
  ],
  invalid: [
    {
      ...change("the pool rises, TTM_MIN_MIB does not", raised, ENV, false),
      findings: [{ data: { ttm_min_changed: false, missing_guards: [] } }],
    },
    {
      ...change("the guard is not touched", fixed, ENV, true),
      findings: [{ data: { ttm_min_changed: true, missing_guards: ["test/ttm-ledger.bats"] } }],
    },
    {
      ...change("a slot bump (MAX_SEQS 8 → 9) without TTM_MIN_MIB", { MAX_SEQS: "9" }, ENV, false),
      findings: [{ data: { ledger_before_mib: 97791.68, ledger_mib: 98015.64, ttm_min_changed: false } }],
    },
    {
      ...change("what to change, with the numbers", raised, ENV, true),
      findings: [
        {
          message:
            "the pin ledger moves 97,791.68 → 99,839.68 MiB by HOST_POOL_MIB 44,928 → 45,952: in the same commit, change TTM_MIN_MIB (97,792; ceil(ledger) is 99,840) and update test/ttm-ledger.bats",
        },
      ],
    },
  ],
});
