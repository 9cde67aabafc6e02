// The fleet readers beyond env files: radiance ledger facts and playbooks plug in here.
import type { FleetReaders } from "./fleet.js";
import { ledgerReader } from "../radiance/reader.js";
import { playbookReader } from "../playbook/deploy.js";

export function fleetReaders(): FleetReaders[] {
  return [ledgerReader, playbookReader];
}
