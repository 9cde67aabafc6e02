// Fills FleetState.ledgers from the ledger facts files the fleet loader already read (it reads
// policy.ledgers for every service file). Plugs into loadFleet as a FleetReaders entry.
import type { FleetReaders } from "../engine/fleet.js";
import { ledgerEntryOf, ledgerPathOf, type LedgerEntry } from "../parse/ledger.js";

export const ledgerReader: FleetReaders = {
  enrich(fleet, files, policy) {
    for (const s of fleet.services) {
      const file = ledgerPathOf(policy.ledgers, s.name);
      const d = files.get(file);
      if (!d) continue;
      let entry: LedgerEntry | null = null;
      if (d.problem) entry = { ok: false, problems: [{ line: 1, path: "", message: d.problem }], file };
      else if (d.text !== null) entry = ledgerEntryOf(d.text, file);
      if (entry) fleet.ledgers[s.name] = entry;
    }
  },
};
