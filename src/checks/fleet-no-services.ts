// fleet/no-services: a services glob that matches nothing checks nothing, and `check --all` would say
// PASS over a fleet it never read. Under --all the gate says so (explain and plan say it too); the fix
// names a folder where env files do live when the repository has any.
import { defineCheck } from "./define.js";

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
    ? `no file matches the services glob "${glob}" and the repository has no .env file: kvgate checked no service; set services: in kvgate.yaml to the glob of your env files`
    : `no file matches the services glob "${glob}", so kvgate checked no service; env files live elsewhere: set services: "${found}" in kvgate.yaml`;
}

export const fleetNoServices = defineCheck({
  id: "fleet/no-services",
  severity: "warning",
  description: "Under --all (and in explain and plan) the services glob of kvgate.yaml matches no file: nothing was checked.",
  messages: {
    none: (d: { glob: string; message: string }) => d.message,
  },
  run(ctx) {
    if (ctx.unit.kind !== "all" || ctx.after.services.length > 0) return [];
    const glob = ctx.policy.services;
    return [{ message: "none" as const, file: null, line: null, data: { glob, message: noServicesMessage(glob, ctx.after.paths) } }];
  },
});
