// Builds the CLI and the GitHub Action into single ESM bundles.
// One file per entry keeps startup to one module load: the pre-commit hook runs on every commit.
import { build } from "esbuild";
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { parse } from "yaml";

// The rules/ pack, parsed once here: composing YAML documents at every start was the hook's largest
// cost. zod still validates this data at load (src/rules/data.ts).
const rules = Object.fromEntries(
  readdirSync("rules")
    .filter((f) => f.endsWith(".yaml"))
    .sort()
    .map((f) => [f, parse(readFileSync(`rules/${f}`, "utf8"))]),
);

// The build's identity: the hook's fast path trusts what a full run recorded only from the same build
// (src/cli/fast-path-key.ts). Every source file, the rules pack and the version go into it.
function sourcesOf(dir) {
  return readdirSync(dir, { withFileTypes: true })
    .sort((a, b) => (a.name < b.name ? -1 : 1))
    .flatMap((e) => (e.isDirectory() ? sourcesOf(`${dir}/${e.name}`) : [`${dir}/${e.name}`]));
}
const buildId = createHash("sha256")
  .update(readFileSync("package.json"))
  .update(JSON.stringify(rules))
  .update(
    sourcesOf("src")
      .map((f) => `${f}\0${readFileSync(f, "utf8")}`)
      .join("\0"),
  )
  .digest("hex")
  .slice(0, 16);
// Bundled CommonJS dependencies (simple-git, yaml) call require(); give each ESM bundle one.
const banner = {
  js: "import { createRequire as __kvgateCreateRequire } from 'node:module'; const require = __kvgateCreateRequire(import.meta.url);",
};

// The pack validated here, once, with the schemas the CLI uses (src/rules/pack-check.ts): a broken
// rules/ file fails the build, and the bundles embed each file's validated output, so a run reads it
// without validating it again (src/rules/data.ts).
async function checkedRules() {
  const dir = mkdtempSync(join(tmpdir(), "kvgate-pack-check-"));
  try {
    const out = join(dir, "pack-check.mjs");
    await build({
      entryPoints: ["src/rules/pack-check.ts"],
      bundle: true,
      platform: "node",
      format: "esm",
      outfile: out,
      logLevel: "warning",
      banner,
    });
    const { checkedPack } = await import(pathToFileURL(out).href);
    return checkedPack(rules);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
const checked = await checkedRules();

// What the fast path needs of each detector to tell "no secret can be here": its keywords, regex,
// charset (the left boundary), flags and file context; from the validated pack, whose regexes have
// their fragments ({ASSIGN}) spliced in.
const detectorTriggers = checked["secrets.yaml"].detectors.map((d) => ({
  keywords: d.keywords,
  regex: d.regex,
  charset: d.charset,
  ...(d.left_boundary ? { left_boundary: true } : {}),
  ...(d.flags ? { flags: d.flags } : {}),
  ...(d.file_context ? { file_context: d.file_context } : {}),
}));

const common = {
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  sourcemap: false,
  // Whitespace and syntax only: names stay readable in stack traces (KVGATE_DEBUG=1).
  minifyWhitespace: true,
  minifySyntax: true,
  legalComments: "none",
  define: { __KVGATE_RULES__: JSON.stringify(checked), __KVGATE_RULES_CHECKED__: "true", __KVGATE_BUILD__: JSON.stringify(buildId) },
  logLevel: "warning",
  banner,
};

// The Compose Specification's JSON schema (src/compose/schema/), compiled once here with ajv into a
// validator of its own file: src/load/compose-schema.ts loads it the first time a compose file is
// read, so neither ajv's compile (a second per run) nor the validator (200 KB) weighs on a hook run
// that reads no compose file. Descriptions are dropped (the messages are kvgate's); `duration` is a
// format compose-go checks with Go's time.ParseDuration, which kvgate does not repeat.
async function composeSchemaValidator(outfile, dir) {
  const { Ajv } = await import("ajv");
  const { default: standaloneCode } = await import("ajv/dist/standalone/index.js");
  const drop = new Set(["description", "title", "deprecated", "$schema", "$comment"]);
  const strip = (n) =>
    Array.isArray(n)
      ? n.map(strip)
      : n && typeof n === "object"
        ? Object.fromEntries(
            Object.entries(n)
              .filter(([k, v]) => !(drop.has(k) && typeof v !== "object"))
              .map(([k, v]) => [
                k,
                ["properties", "patternProperties", "definitions"].includes(k)
                  ? Object.fromEntries(Object.entries(v).map(([a, b]) => [a, strip(b)]))
                  : strip(v),
              ]),
          )
        : n;
  const schema = strip(JSON.parse(readFileSync("src/compose/schema/compose-spec.json", "utf8")));
  const ajv = new Ajv({
    strict: false,
    validateSchema: false,
    inlineRefs: false,
    allErrors: false,
    code: { source: true, optimize: true },
  });
  ajv.addFormat("duration", true);
  const source = join(dir, "compose-schema-standalone.cjs");
  writeFileSync(source, standaloneCode(ajv, ajv.compile(schema)));
  // The generated code requires ajv's small runtime helpers (ajv/dist/runtime/*), bundled in.
  await build({
    ...common,
    entryPoints: [source],
    nodePaths: [join(process.cwd(), "node_modules")],
    format: "cjs",
    banner: { js: "" },
    define: {},
    minify: true,
    outfile,
  });
}

const only = process.argv[2];
// The rule registry is generated from the files of src/checks/ (a full build only: the test setup
// builds one bundle at a time, and a test fails when the committed registry differs).
if (!only) execFileSync(process.execPath, ["scripts/checks-index.mjs"], { stdio: "inherit" });
const jobs = [];
// pg is bundled like every other dependency (the package has none at run time); esbuild wraps it so
// it only runs when `usage --litellm-db` imports it. pg-native is pg's optional native binding, which
// pg requires inside a try and falls back from: never installed, never bundled.
if (!only || only === "cli")
  jobs.push(
    build({
      ...common,
      // CommonJS, so bin/load-cli.cjs can run it as a vm.Script with V8's code cache (Node 20 has no
      // module compile cache); import.meta.url becomes the file's URL.
      format: "cjs",
      banner: { js: "const __kvgateUrl = require('node:url').pathToFileURL(__filename).href;" },
      define: { ...common.define, "import.meta.url": "__kvgateUrl", __KVGATE_COMPOSE_SCHEMA__: JSON.stringify("./compose-schema.cjs") },
      entryPoints: ["src/cli/main.ts"],
      outfile: "dist/cli.cjs",
      external: ["pg-native"],
    }),
  );
// The hook's fast path, its own small bundle: bin/kvgate.js loads it before the CLI for `check --staged`.
if (!only || only === "cli") {
  jobs.push(
    build({
      ...common,
      entryPoints: ["src/cli/fast-path.ts"],
      // CommonJS (see bin/kvgate.js): its builtins are loaded without ESM facades.
      format: "cjs",
      banner: { js: "" },
      outfile: "dist/fast.cjs",
      define: { __KVGATE_BUILD__: JSON.stringify(buildId), __KVGATE_DETECTORS__: JSON.stringify(detectorTriggers) },
    }),
  );
}
if (!only || only === "action")
  jobs.push(
    build({
      ...common,
      // The Action runs from the repository's checkout, where dist/compose-schema.cjs is committed.
      define: { ...common.define, __KVGATE_COMPOSE_SCHEMA__: JSON.stringify("../compose-schema.cjs") },
      entryPoints: ["src/action/main.ts"],
      outfile: "dist/action/index.js",
      target: "node24",
    }),
  );
if (!only || only === "cli") {
  const dir = mkdtempSync(join(tmpdir(), "kvgate-compose-schema-"));
  jobs.push(composeSchemaValidator("dist/compose-schema.cjs", dir).finally(() => rmSync(dir, { recursive: true, force: true })));
}
await Promise.all(jobs);
