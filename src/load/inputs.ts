// Every kind of file a fleet is loaded from, in the order each adds to the fleet. A new input kind
// (compose files) is one more entry here: no caller of loadFleet changes.
import type { FleetInput } from "./input.js";
import { envFiles } from "./env-files.js";
import { ledgerFacts } from "./ledger-facts.js";
import { playbooks } from "./playbooks.js";
import { composes } from "./composes.js";
import { observed } from "./observed.js";
import { modelFiles } from "./model-files.js";
import { systemdUnits } from "./systemd.js";
import { kubernetes } from "./kubernetes.js";

export const FLEET_INPUTS: readonly FleetInput[] = [
  envFiles,
  ledgerFacts,
  playbooks,
  composes,
  systemdUnits,
  kubernetes,
  observed,
  modelFiles,
];
