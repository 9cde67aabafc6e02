// rules/policy.yaml's defaults as the contract states them (section 3), for tests that build a Policy
// by hand; test/config/config.test.ts checks the real rules/policy.yaml resolves to the same numbers.
import type { Config } from "../../src/config/schema.js";

export const DEFAULTS: Config = {
  version: 1,
  services: "scripts/*.env",
  ledgers: "scripts/{service}.ledger.yaml",
  playbooks: "playbooks/**/*.{yml,yaml}",
  compose: "**/{docker-compose,compose}*.{yml,yaml}",
  systemd: "**/*.service",
  kubernetes: ["k8s/**/*.{yml,yaml}", "deploy/**/*.{yml,yaml}", "charts/**/values*.{yml,yaml}"],
  vllm: { overhead: "2GiB", default_utilization: 0.92, context_overhead: "512MiB" },
  kv: { factor: 1.25, round: "0.5GiB" },
  radiance: { headroom_floor_mib: 48, pool_step_mib: 1024 },
  ttm: { slot_mib: 111.98, statics_mib: 2048, slack_mib: 1024, guards: [] },
  knobs: { enforce: ["radiance"] },
  secrets: { placeholders: { values: [], patterns: [] }, override: "ALLOW_SECRETS", exclude: [] },
  waivers: { trailer: "Kvgate-Waive" },
  usage: { runaway_tokens: 100000 },
};
