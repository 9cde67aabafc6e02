// The radiance ledger facts file of each service (`policy.ledgers` with `{service}` replaced): parsed
// and validated into FleetState.ledgerFacts. An unreadable one is stored with its problem, so
// radiance/ledger-facts reports it at its file.
import { ledgerEntryOf, ledgerPathOf, type LedgerEntry } from "../parse/ledger-facts.js";
import type { FleetInput } from "./input.js";
import { serviceIndex } from "./service-index.js";

export const ledgerFacts: FleetInput = {
  kind: "ledger facts",
  paths: ({ snapshot, listing, policy }) => serviceIndex(snapshot, listing, policy).ledgerFactsPaths,
  add(fleet, files, { policy }) {
    for (const s of fleet.services) {
      const file = ledgerPathOf(policy.ledgers, s.name);
      const d = files.get(file);
      if (!d) continue;
      let entry: LedgerEntry | null = null;
      if (d.problem) entry = { ok: false, problems: [{ line: 1, path: "", message: d.problem }], file };
      else if (d.text !== null) entry = ledgerEntryOf(d.text, file);
      if (entry) fleet.ledgerFacts[s.name] = entry;
    }
  },
};
