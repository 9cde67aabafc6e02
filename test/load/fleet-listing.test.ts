// Issue 13 item 3: the staged check lists only what the policy's globs can match. The globs the
// policy gives (the ledgers pattern as its literal folder); what git is asked: fleet-listing.e2e.test.ts.
import { expect, test } from "vitest";
import { fleetChangeGlobs, ledgerGlob, listingGlobs } from "../../src/load/fleet-globs.js";

test("the ledgers pattern becomes its literal folder; the fleet's globs are the policy's", () => {
  expect(ledgerGlob("scripts/{service}.ledger.yaml")).toBe("scripts/**");
  expect(ledgerGlob("{service}.ledger.yaml")).toBe("**");
  expect(ledgerGlob("fleet/ledgers/{service}/ttm.yaml")).toBe("fleet/ledgers/**");
  const policy = {
    services: "svc/*.env",
    ledgers: "led/{service}.yaml",
    playbooks: "pb/**/*.yml",
    compose: "deploy/compose*.yml",
    systemd: "units/*.service",
    ttm: { slot_mib: 0, statics_mib: 0, slack_mib: 0, guards: ["bin/ttm-guard.sh"] },
    observed: "obs/plateaus.csv",
  };
  const models = ["models/**/config.json", "models/**/model.safetensors.index.json"];
  expect(listingGlobs(policy)).toEqual(["svc/*.env", "led/**", "pb/**/*.yml", "deploy/compose*.yml", "units/*.service", ...models]);
  // Env files anywhere can feed a compose file's env_file; other YAML only when the tree has a compose file.
  const envSide = ["**/.env", "**/.env.*", "**/*.env"];
  const head = [
    "svc/*.env",
    "led/**",
    "pb/**/*.yml",
    "deploy/compose*.yml",
    "units/*.service",
    ...models,
    "**/{docker-compose,compose}*.{yml,yaml}",
  ];
  const tail = [".kvgateignore", "kvgate.yaml", ".kvgate.yaml", "bin/ttm-guard.sh", "obs/plateaus.csv"];
  expect(fleetChangeGlobs(policy, false)).toEqual([...head, ...envSide, ...tail]);
  expect(fleetChangeGlobs(policy, true)).toEqual([...head, ...envSide, "**/*.yml", "**/*.yaml", ...tail]);
});
