// The env files under the `services` glob: one service each. A file the gate cannot read as text is
// an env/parse problem on line 1, never a crash and never a skipped service.
// When the glob matches no file (no kvgate.yaml, or one whose glob points elsewhere), the seats are
// discovered as `kvgate init` finds them (docs/coverage.md#discovery): every `*.env` file of the
// repository whose keys or values name an engine (an image in any *IMAGE variable, `vllm serve`, an
// engine-only flag, ENGINE) or hold a GPU is a service, so an operator's own layout is never a pass
// over a fleet nobody read.
import type { ParsedEnv } from "../model/types.js";
import { parseEnv } from "../parse/env.js";
import { buildService } from "../model/build.js";
import { needsEngine } from "../model/engine.js";
import type { FleetInput, LoadContext } from "./input.js";
import { serviceIndex } from "./service-index.js";

/** An env file that could be a service: `*.env` anywhere, not compose's `.env` variables, not vendored code. */
export const CANDIDATE = /(^|\/)[^/.][^/]*\.env$/;
const VENDORED = /(^|\/)(node_modules|vendor|\.git)\//;

/** The service env files: the glob's, or (when it matches none) the candidates discovery reads. */
function servicePathsOf(ctx: LoadContext): { paths: string[]; discovered: boolean } {
  const own = serviceIndex(ctx.snapshot, ctx.listing, ctx.policy).servicePaths;
  if (own.length > 0) return { paths: own, discovered: false };
  return { paths: ctx.listing.filter((p) => CANDIDATE.test(p) && !VENDORED.test(p)), discovered: true };
}

function unreadableEnv(file: string, problem: string): ParsedEnv {
  return { file, entries: new Map(), all: [], flags: [], positionals: [], problems: [{ kind: "parse", line: 1, message: problem }] };
}

export const envFiles: FleetInput = {
  kind: "env files",
  paths: (ctx) => servicePathsOf(ctx).paths,
  add(fleet, files, ctx) {
    const { policy, pack } = ctx;
    const { paths, discovered } = servicePathsOf(ctx);
    for (const p of paths) {
      const d = files.get(p);
      if (!d || (d.text === null && d.problem === null)) continue;
      const parsed = d.problem ? unreadableEnv(p, d.problem) : parseEnv(d.text as string, p);
      const service = buildService(parsed, pack, policy);
      // Discovered: only a file that runs an engine or holds a GPU is a service (an app's .env is not).
      if (discovered && service.engine === null && !needsEngine(service, pack)) continue;
      fleet.services.push(service);
    }
    if (discovered && fleet.services.length > 0) fleet.discovered = true;
  },
};
