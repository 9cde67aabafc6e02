// The observed plateaus file kvgate.yaml names (`observed: observed.yaml`, docs/usage-observe.md), read
// into FleetState.observed for gpu/plateau. A file that is missing, not text or malformed is kept as
// such, so the check reports it at its file and line: never a silent pass.
import { readObservedFile } from "../parse/observed.js";
import type { FleetInput } from "./input.js";

export const observed: FleetInput = {
  kind: "observed plateaus",
  paths: ({ policy }) => (policy.observed ? [policy.observed] : []),
  add(fleet, files, { policy }) {
    const file = policy.observed;
    if (!file) return;
    const d = files.get(file);
    if (!d || (d.text === null && d.problem === null)) fleet.observed = { file, read: null };
    else if (d.problem !== null) fleet.observed = { file, read: { ok: false, problems: [{ line: 1, message: `${file}: ${d.problem}` }] } };
    else fleet.observed = { file, read: readObservedFile(d.text as string, file) };
  },
};
