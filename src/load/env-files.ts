// The env files under the `services` glob: one service each. A file the gate cannot read as text is
// an env/parse problem on line 1, never a crash and never a skipped service.
import type { ParsedEnv } from "../model/types.js";
import { parseEnv } from "../parse/env.js";
import { buildService } from "../model/build.js";
import type { FleetInput } from "./input.js";
import { serviceIndex } from "./service-index.js";

function unreadableEnv(file: string, problem: string): ParsedEnv {
  return { file, entries: new Map(), all: [], flags: [], positionals: [], problems: [{ kind: "parse", line: 1, message: problem }] };
}

export const envFiles: FleetInput = {
  kind: "env files",
  paths: ({ snapshot, listing, policy }) => serviceIndex(snapshot, listing, policy).servicePaths,
  add(fleet, files, { snapshot, listing, policy, pack }) {
    for (const p of serviceIndex(snapshot, listing, policy).servicePaths) {
      const d = files.get(p);
      if (!d || (d.text === null && d.problem === null)) continue;
      const parsed = d.problem ? unreadableEnv(p, d.problem) : parseEnv(d.text as string, p);
      fleet.services.push(buildService(parsed, pack, policy));
    }
  },
};
