// fleet/no-services: a services glob that matches nothing checks nothing, and `check --all` would say
// PASS over a fleet it never read. Under --all the gate says so (explain and plan say it too). When the
// seats were found by discovery instead (src/load/env-files.ts), it names the glob that matches them;
// when no env file runs an engine, the folder where env files do live.
import { defineCheck } from "./define.js";
import { envGlobFor } from "../load/env-glob.js";

/** The glob of the folder holding the first `*.env` file of the repository, if any. */
function envGlobOf(paths: readonly string[]): string | null {
  const env = paths.find((p) => p.endsWith(".env") && !p.split("/").some((part) => part.startsWith(".")));
  if (env === undefined) return null;
  const dir = env.includes("/") ? env.slice(0, env.lastIndexOf("/")) : "";
  return dir === "" ? "*.env" : `${dir}/*.env`;
}

function noServicesMessage(glob: string, paths: readonly string[]): string {
  const found = envGlobOf(paths);
  return found === null
    ? `no file matches the services glob "${glob}" and the repository has no .env file: ` +
        `kvgate checked no service; set services: in kvgate.yaml to the glob of your env files`
    : `no file matches the services glob "${glob}", and no env file of the repository ` +
        `runs an engine kvgate knows or holds a GPU, so kvgate checked no service; ` +
        `if ${found} are your services, set services: "${found}" in kvgate.yaml`;
}

export const fleetNoServices = defineCheck({
  id: "fleet/no-services",
  severity: "warning",
  description: "Under --all (and in explain and plan) the services glob of kvgate.yaml matches no file: nothing was checked.",
  messages: {
    none: (d: { glob: string; message: string }) => d.message,
  },
  run(ctx) {
    if (ctx.unit.kind !== "all" && !ctx.unit.policyChange) return [];
    const glob = ctx.policy.services;
    const written = ctx.written.after;
    if (written.discovered) {
      const found = envGlobFor(written.services.map((s) => s.file)) ?? "";
      const files = written.services.map((s) => s.file).join(", ");
      const message =
        `no file matches the services glob "${glob}"; kvgate found the ` +
        `seats by discovery (${files}): set services: "${found}" in ` +
        `kvgate.yaml (kvgate init writes it) so the gate reads what you mean`;
      return [{ message: "none" as const, file: null, line: null, data: { glob, found, message } }];
    }
    if (ctx.after.services.length > 0) return [];
    return [{ message: "none" as const, file: null, line: null, data: { glob, message: noServicesMessage(glob, ctx.after.paths) } }];
  },
});
