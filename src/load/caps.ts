// What the loader reads of each kind of file at most (docs/gated-files.md#caps): a pull request is
// untrusted input, and a 2 GB "config.json" or a 20 MB compose file must cost a refusal, not the run.
// On disk the door (src/git/door.ts) refuses a file over its cap by its size before reading it; a
// blob read from git is held to the same cap once read. A refused file is a finding at the file
// (its kind's parse rule), never a silent skip: fail closed.
import type { ReadLimits } from "../git/types.js";
import { tooBig, type Cap } from "../git/door.js";
import { GateError } from "../errors.js";
import { decode, type DecodedFile } from "./decode.js";

const MiB = 1024 * 1024;

/**
 * Per input kind of src/load/inputs.ts (its `kind`): the largest real files of each kind are far
 * below (a 1,000-host fleet's env file is a few KiB, DeepSeek-V3's safetensors index 1 MiB, a long
 * compose file 1 MiB), and a legitimate 10 MB compose file is still read.
 */
export const READ_CAPS: Readonly<Record<string, number>> = {
  "env files": 1 * MiB,
  "ledger facts": 1 * MiB,
  playbooks: 4 * MiB,
  "compose files": 16 * MiB,
  "systemd units": 1 * MiB,
  "observed plateaus": 8 * MiB,
  "model files": 8 * MiB,
  "Kubernetes manifests": 16 * MiB,
};

/** A kind the table does not name yet (a new input kind) is held to the largest cap. */
const DEFAULT_CAP = 16 * MiB;
/** An env file (`*.env`, `.env`, `.env.*`) is held to the env cap whichever kind reads it (compose's env_file too). */
const ENV_NAME = /(^|\/)(\.env[^/]*|[^/]*\.env)$/;

export const CONFIG_CAP: Cap = { bytes: 4 * MiB, kind: "kvgate.yaml" };
export const IGNORE_CAP: Cap = { bytes: 1 * MiB, kind: ".kvgateignore" };

/** The cap of a path the kinds `kinds` read. */
function capOf(path: string, kinds: readonly string[]): Cap {
  const envCap = READ_CAPS["env files"] as number;
  if (ENV_NAME.test(path)) return { bytes: envCap, kind: "env files" };
  let best: Cap | null = null;
  for (const kind of kinds) {
    const bytes = READ_CAPS[kind] ?? DEFAULT_CAP;
    if (!best || bytes > best.bytes) best = { bytes, kind };
  }
  return best ?? { bytes: DEFAULT_CAP, kind: "files" };
}

/** The fleet loader's limits: each path's cap by the kinds that want it; a refusal kept for the file's finding. */
export function fleetLimits(
  kinds: ReadonlyMap<string, readonly string[]>,
): ReadLimits & { decode(path: string, buf: Buffer | null): DecodedFile } {
  const refused = new Map<string, string>();
  const cap = (path: string): Cap => capOf(path, kinds.get(path) ?? []);
  return {
    capOf: cap,
    refused: (path, why) => void refused.set(path, why.problem),
    decode(path, buf) {
      const problem = refused.get(path);
      if (problem !== undefined) return { text: null, problem };
      const c = cap(path);
      // A blob read from git (no door on the way) is held to the same cap.
      if (buf !== null && buf.length > c.bytes) return { text: null, problem: tooBig(path, buf.length, c).problem };
      return decode(buf);
    },
  };
}

/** Limits for a file whose refusal stops the run (kvgate.yaml, .kvgateignore): exit 2 with the reason. */
export function stopLimits(cap: Cap): ReadLimits & { check(path: string, buf: Buffer | null): Buffer | null } {
  return {
    capOf: () => cap,
    refused: (_path, why) => {
      throw new GateError(why.message, { hint: why.hint });
    },
    check(path, buf) {
      if (buf !== null && buf.length > cap.bytes) {
        const r = tooBig(path, buf.length, cap);
        throw new GateError(r.message, { hint: r.hint });
      }
      return buf;
    },
  };
}
