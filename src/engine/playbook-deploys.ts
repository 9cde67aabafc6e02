// A changed playbook is one deploy of every service it sets: the fleet as the playbook would leave it
// (src/load/running.ts deployFleet: each service it sets replaced by its deployed version) is checked
// again as one deploy unit; the pipeline's `place` step reports what that adds at the playbook's lines.
// Compose files are not deploys here: the running face already lays every compose file over its env
// files (src/load/running.ts), so what a compose file deploys is what the unit's own run checked.
import type { DeployFile, PlaybookRead } from "../model/types.js";
import type { CheckContext } from "../checks/define.js";
import { playbooksInUnit } from "../model/playbooks.js";
import { composesInUnit } from "../model/composes.js";
import { deployFleet, serviceBuilder } from "../load/running.js";
import { asDeployFile } from "../compose/index.js";

/** The contexts to run the sizing checks over: one per changed playbook that deploys something,
 *  before = the unit's before, after = the fleet as that playbook deploys it. */
export function playbookContexts(ctx: CheckContext): { playbook: PlaybookRead; ctx: CheckContext }[] {
  const build = serviceBuilder(ctx.pack, ctx.policy);
  // The playbook and compose checks already ran over the unit; in a deploy context they would only repeat.
  const quiet = { playbooks: [], composes: [] };
  return playbooksInUnit(ctx)
    .filter((p) => p.deploys.length > 0)
    .map((p) => ({
      playbook: p,
      ctx: {
        ...ctx,
        after: { ...deployFleet(ctx.after, p, build), ...quiet },
        written: { ...ctx.written, after: { ...ctx.written.after, ...quiet } },
      },
    }));
}

/**
 * A compose project's profiles, when COMPOSE_PROFILES does not pick them: `docker compose up` starts
 * the services without a profile (the running face), and `--profile P` adds P's. Profiles are often
 * alternatives for one card (a small and a big model), so each is checked on its own on top of the
 * default services, never all at once; its findings are reported as that profile's.
 */
export function composeProfileContexts(ctx: CheckContext): { playbook: DeployFile; ctx: CheckContext }[] {
  const build = serviceBuilder(ctx.pack, ctx.policy);
  const quiet = { playbooks: [], composes: [] };
  return composesInUnit(ctx)
    .filter((r) => r.activeProfiles === null)
    .flatMap((r) => {
      const profiles = [...new Set(r.deploys.flatMap((d) => d.profiles))].sort();
      return profiles.map((profile) => {
        const file: DeployFile = { ...asDeployFile({ ...r, deploys: r.deploys.filter((d) => d.profiles.includes(profile)) }), profile };
        return {
          playbook: file,
          ctx: {
            ...ctx,
            after: { ...deployFleet(ctx.after, file, build), ...quiet },
            written: { ...ctx.written, after: { ...ctx.written.after, ...quiet } },
          },
        };
      });
    });
}
