// kvgate.yaml as this build last validated it, by its text: a run whose config has not changed since
// skips the YAML parse, the building of zod's schema (built on first use, src/config/schema.ts) and
// the validation, together about 12 ms of every full `check` (BENCHMARKS.md). Kept in the user's
// cache folder beside the compile cache (bin/load-cli.cjs: $KVGATE_CACHE_DIR, else
// $XDG_CACHE_HOME/kvgate, else ~/.cache/kvgate; KVGATE_COMPILE_CACHE=0 turns both off), one small file
// per build holding the last few configs. The key is a hash of the build, the file's name and its
// text: the same text validates to the same config in any repository. Only a config that validated
// is kept (a broken one is parsed and reported every time); a file another user owns is never read;
// any failure to read or write it only costs the parse.
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { isDeepStrictEqual } from "node:util";
import type { ConfigMemory } from "../config/load.js";

/** Configs kept: a repository's kvgate.yaml before and after a change, and a few repositories'. */
const KEPT = 8;

function cacheFolder(env: NodeJS.ProcessEnv): string {
  if (env.KVGATE_CACHE_DIR) return env.KVGATE_CACHE_DIR;
  return join(env.XDG_CACHE_HOME || join(homedir(), ".cache"), "kvgate");
}

/** [key, the config as JSON] pairs, oldest first. */
type Entries = [string, string][];

function readOwn(path: string): Entries {
  try {
    const st = statSync(path);
    if (typeof process.getuid === "function" && st.uid !== process.getuid()) return [];
    const data: unknown = JSON.parse(readFileSync(path, "utf8"));
    return Array.isArray(data)
      ? data.filter((e): e is [string, string] => Array.isArray(e) && e.length === 2 && e.every((x) => typeof x === "string"))
      : [];
  } catch {
    return [];
  }
}

/** The cache for this build (`build`: build.mjs's identity of the sources and the rules pack), or null when caches are off. */
export function configCache(build: string, env: NodeJS.ProcessEnv = process.env): ConfigMemory | null {
  if (env.KVGATE_COMPILE_CACHE === "0") return null;
  const folder = cacheFolder(env);
  const path = join(folder, `configs-${build}.json`);
  let entries: Entries | null = null;
  const keyOf = (file: string, text: string, cards: boolean): string =>
    createHash("sha256")
      .update(`${build}\0${file}\0${cards ? "cards" : "no cards"}\0`)
      .update(text)
      .digest("hex");
  return {
    get(file, text, cards) {
      entries ??= readOwn(path);
      const key = keyOf(file, text, cards);
      const hit = entries.find(([k]) => k === key);
      if (!hit) return undefined;
      try {
        const config: unknown = JSON.parse(hit[1]);
        return typeof config === "object" && config !== null && !Array.isArray(config) ? config : undefined;
      } catch {
        return undefined;
      }
    },
    put(file, text, cards, config) {
      const json = JSON.stringify(config);
      // A config JSON cannot carry as it is (a value a later schema turns into a Date or a Map) is not kept.
      if (!isDeepStrictEqual(JSON.parse(json), config)) return;
      entries ??= readOwn(path);
      const key = keyOf(file, text, cards);
      entries = [...entries.filter(([k]) => k !== key), [key, json] as [string, string]].slice(-KEPT);
      try {
        mkdirSync(folder, { recursive: true, mode: 0o700 });
        const tmp = `${path}.${process.pid}.tmp`;
        writeFileSync(tmp, JSON.stringify(entries), { mode: 0o600 });
        renameSync(tmp, path);
      } catch {
        // Not kept this time: the next run parses again.
      }
    },
  };
}
