// playbook/drift: a playbook (or a compose file) the change touches deploys a value the committed env
// file does not hold, so the repository no longer says what runs. Values of secret-looking keys are
// never shown. A compose service that matches no env file has nothing to drift from: it is skipped.
// The change that causes the drift answers for it: an env-only commit that moves a value a committed
// playbook (not in the change) still deploys the old way is reported on that commit, at the env line.
import { engineSpec } from "../model/engine.js";
import { defineCheck, type CheckContext, type Report } from "./define.js";
import type { ParsedEnv } from "../model/types.js";
import { playbooksInUnit } from "../model/playbooks.js";
import { composesInUnit } from "../model/composes.js";
import { asDeployFile } from "../compose/index.js";
import { driftOf, settingKeysOf, type SettingKeys } from "../playbook/drift.js";
import { readValue } from "../model/settings.js";
import type { EngineSpec } from "../rules/engines.js";

/** The drift keys of an engine, with its settings' units: `8G` on one side and `8GiB` on the other are one value. */
function keysOf(engine: EngineSpec | undefined): SettingKeys {
  const specs = Object.values(engine?.settings ?? {});
  const specOf = (key: string) => specs.find((s) => s.env === key || (s.flags ?? []).includes(key) || (s.aliases ?? []).includes(key));
  return {
    ...settingKeysOf(engine),
    equal(key, a, b) {
      const spec = specOf(key);
      if (!spec) return false;
      const ra = readValue(spec, a.value, a.flag);
      const rb = readValue(spec, b.value, b.flag);
      return ra.ok && rb.ok && JSON.stringify(ra.value) === JSON.stringify(rb.value);
    },
  };
}

type Data = {
  playbook: string;
  /** Set when the deploy is a compose file's service (the same path as `playbook`). */
  compose?: string;
  service: string;
  env_file: string;
  key: string;
  playbook_value?: string | null;
  committed_value?: string | null;
};

const shown = (v: string | null | undefined): string =>
  v === undefined ? "a different value" : v === null ? "nothing" : v === "" ? '""' : v;

const messages = {
  differs: (d: Data) =>
    `${d.playbook} deploys ${d.key}=${shown(d.playbook_value)} to ${d.service}, ` +
    `but ${d.env_file} has ${shown(d.committed_value)}: commit the ` +
    `deployed value in ${d.env_file}, or change ${d.compose ?? "the playbook"}`,
  removed: (d: Data) =>
    `${d.playbook} removes ${d.key} from ${d.service}, but ${d.env_file} still ` +
    `sets it${d.committed_value === undefined ? "" : ` (${shown(d.committed_value)})`}: ` +
    `delete it from ${d.env_file} too, or keep it in the playbook`,
  added: (d: Data) =>
    `${d.playbook} deploys ${d.key}=${shown(d.playbook_value)} to ${d.service}, which ${d.env_file} does not set: add it to ${d.env_file}`,
  "env-moved": (d: Data) =>
    `${d.env_file} ${d.committed_value === null ? `no longer sets ${d.key}` : `now sets ${d.key}${d.committed_value === undefined ? "" : `=${shown(d.committed_value)}`}`}, ` +
    `but ${d.playbook} (not in this change) still deploys ` +
    `${d.playbook_value === undefined ? "another value" : shown(d.playbook_value)} to ` +
    `${d.service}: change ${d.playbook} in the same commit, or keep the value it deploys`,
  "no-env": (d: Data) =>
    `${d.playbook} deploys ${d.service}, but ${d.env_file} is not in the repository: commit the env file the playbook writes, so kvgate can size it`,
};

/** Keys whose values may be credentials: the finding names the key, never the value. */
const SECRET_KEY = /(TOKEN|SECRET|PASSW(OR)?D|API_?KEY|ACCESS_KEY|PRIVATE|CREDENTIAL|AUTH)/i;

export const playbookDrift = defineCheck({
  id: "playbook/drift",
  severity: "warning",
  description: "A playbook deploys a value that differs from the committed env file.",
  messages,
  run(ctx) {
    const out: Report<typeof messages>[] = [];
    const composeReads = composesInUnit(ctx).map((r) => asDeployFile({ ...r, deploys: r.deploys.filter((d) => d.matchedBy !== null) }));
    const composePaths = new Set(composeReads.map((r) => r.path));
    for (const read of [...playbooksInUnit(ctx), ...composeReads]) {
      for (const deploy of read.deploys) {
        const base = {
          playbook: read.path,
          ...(composePaths.has(read.path) ? { compose: read.path } : {}),
          service: deploy.service,
          env_file: deploy.envFile,
        };
        // The env file as committed: the written side (the running side already has the deploy laid over it).
        const committed = ctx.written.after.services.find((s) => s.name === deploy.service);
        if (!committed) {
          // A file the playbook writes whole (a role's template) defines the seat: it runs as rendered
          // (docs/deploys.md#the-fleet-as-it-runs), with nothing committed to drift from.
          if (deploy.edits.some((e) => e.kind === "reset")) continue;
          const first = deploy.edits[0];
          out.push({
            message: "no-env",
            data: { ...base, key: "" },
            file: first?.file ?? read.path,
            line: first?.line ?? 1,
            service: deploy.service,
          });
          continue;
        }
        const engine = engineSpec(ctx.pack, committed.engine);
        for (const d of driftOf(deploy, committed.env, keysOf(engine))) {
          const hide = SECRET_KEY.test(d.key);
          const data: Data & Record<string, unknown> = {
            ...base,
            key: d.key,
            ...(hide ? {} : { playbook_value: d.playbookValue, committed_value: d.committedValue }),
          };
          const message = d.playbookValue === null ? "removed" : d.committedValue === null ? "added" : "differs";
          out.push({ message, data, file: d.file, line: d.line, service: deploy.service, key: d.key });
        }
      }
    }
    out.push(...envMoved(ctx));
    return out;
  },
});

/** Drifts an env change opens against playbooks the change does not touch: new ones only (the key did not drift before). */
function envMoved(ctx: CheckContext): Report<typeof messages>[] {
  const { before, after } = ctx.written;
  if (!before) return [];
  const inUnit = new Set(playbooksInUnit(ctx).map((p) => p.path));
  const changed = new Set(ctx.unit.files.map((f) => f.path));
  const out: Report<typeof messages>[] = [];
  for (const read of after.playbooks ?? []) {
    if (inUnit.has(read.path)) continue;
    for (const deploy of read.deploys) {
      const now = after.services.find((s) => s.name === deploy.service);
      const was = before.services.find((s) => s.name === deploy.service);
      if (!now || !was || !changed.has(now.file)) continue;
      const old = new Set(driftOf(deploy, was.env, keysOf(engineSpec(ctx.pack, was.engine))).map((d) => d.key));
      for (const d of driftOf(deploy, now.env, keysOf(engineSpec(ctx.pack, now.engine)))) {
        if (old.has(d.key)) continue;
        const hide = SECRET_KEY.test(d.key);
        const data: Data & Record<string, unknown> = {
          playbook: read.path,
          service: deploy.service,
          env_file: now.file,
          key: d.key,
          playbook_line: d.line,
          ...(hide ? {} : { playbook_value: d.playbookValue, committed_value: d.committedValue }),
        };
        out.push({
          message: "env-moved",
          data,
          file: now.file,
          line: envLineOf(now.env, d.key) ?? d.line,
          service: deploy.service,
          key: `env:${d.key}`,
        });
      }
    }
  }
  return out;
}

/** The line of the env file that sets a key (or the last flag of that name). */
function envLineOf(env: ParsedEnv, key: string): number | null {
  if (key.startsWith("-")) return [...env.flags].reverse().find((f) => f.name === key)?.line ?? null;
  return env.entries.get(key)?.line ?? null;
}
