// The fleet readers beyond env files: radiance ledger facts and playbooks plug in here.
import type { FleetReaders } from "./fleet.js";

export function fleetReaders(): FleetReaders[] {
  return [];
}
