// Loads the CLI bundle (dist/cli.cjs) through V8's code cache. Compiling the 1.3 MB bundle was the
// largest single cost of a full `check --staged` on Node 20 (43 ms of about 270), which has no
// compile cache for modules (Node 22's module.enableCompileCache covers ESM, not Node 20). A
// CommonJS bundle run as a vm.Script takes the cached data V8 made of an earlier run, including the
// functions that run compiled lazily: measured 345 → 263 ms median for the full staged check
// (BENCHMARKS.md).
//
// The cache is the user's own: $KVGATE_CACHE_DIR, else $XDG_CACHE_HOME/kvgate, else ~/.cache/kvgate
// (a folder only they can write; a file another user owns is never loaded). Its name holds a hash
// of the bundle's text, the Node version and the architecture: V8 itself checks only the length
// of the source. KVGATE_COMPILE_CACHE=0 turns it off. Any failure to read or write it only costs
// the compile; it never changes what runs.
// CommonJS, like the bundles: node's builtins loaded by require() skip the ESM facade each would cost.
"use strict";
const { createHash } = require("node:crypto");
const { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } = require("node:fs");
const module_ = require("node:module");
const { homedir } = require("node:os");
const { dirname, join } = require("node:path");
const { Script } = require("node:vm");

function cacheFolder(env) {
  if (env.KVGATE_CACHE_DIR) return env.KVGATE_CACHE_DIR;
  const base = env.XDG_CACHE_HOME || join(homedir(), ".cache");
  return join(base, "kvgate");
}

/** The cached data at `path` when this user owns it; undefined otherwise. */
function ownCache(path) {
  try {
    const st = statSync(path);
    if (typeof process.getuid === "function" && st.uid !== process.getuid()) return undefined;
    return readFileSync(path);
  } catch {
    return undefined;
  }
}

function say(env, what) {
  if (env.KVGATE_DEBUG) process.stderr.write(`kvgate: compile cache: ${what}\n`);
}

function loadCli(env = process.env) {
  const file = join(__dirname, "..", "dist", "cli.cjs");
  const bytes = readFileSync(file);
  const source = bytes.toString("utf8");
  let cachePath = null;
  if (env.KVGATE_COMPILE_CACHE !== "0") {
    const id = createHash("sha256").update(bytes).digest("hex").slice(0, 16);
    cachePath = join(cacheFolder(env), `cli-${id}-${process.version}-${process.arch}.v8cache`);
  }
  const cachedData = cachePath ? ownCache(cachePath) : undefined;
  const script = new Script(module_.wrap(source), { filename: file, cachedData });
  if (cachePath) {
    if (cachedData && !script.cachedDataRejected) say(env, `used ${cachePath}`);
    else {
      say(env, `${cachedData ? "rejected" : "absent"}, written at exit: ${cachePath}`);
      // At exit, so the data holds the functions this run compiled too, not only the top level.
      process.once("exit", () => {
        try {
          mkdirSync(dirname(cachePath), { recursive: true, mode: 0o700 });
          const tmp = `${cachePath}.${process.pid}.tmp`;
          writeFileSync(tmp, script.createCachedData(), { mode: 0o600 });
          renameSync(tmp, cachePath);
        } catch {
          // No cache this time: the next run compiles again.
        }
      });
    }
  }
  const mod = { exports: {} };
  script.runInThisContext()(mod.exports, module_.createRequire(file), mod, file, dirname(file));
}

module.exports = { loadCli };
