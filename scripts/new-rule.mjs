// npm run new:rule <family/name>: scaffolds a rule's two hand-written files, src/checks/<file>.ts (the
// module: id, severity, description, messages, a pure run) and test/rules/tables/<file>.ts (its table:
// one passing and one failing case), and regenerates src/checks/index.ts so the registry lists it. The
// scaffold is not a rule yet: its cases are named TODO, which the rule tester refuses to run, so the
// table fails until both cases are written; the docs tests fail until its page and reference exist.
// Refuses an id that is malformed or that kvgate already has (a module, a table, or a detector of
// rules/secrets.yaml), and never overwrites a file.
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";

const ROOT = process.cwd();
const ID = /^[a-z0-9]+(?:-[a-z0-9]+)*\/[a-z0-9]+(?:-[a-z0-9]+)*$/;

function fail(message) {
  process.stderr.write(`new:rule: ${message}\n`);
  process.exit(1);
}

const args = process.argv.slice(2);
if (args.length !== 1) fail("usage: npm run new:rule <family/name>   (e.g. npm run new:rule kv/prefix-cache)");
const id = args[0];
if (!ID.test(id))
  fail(`"${id}" is not a rule id: lowercase words and digits joined by -, one / between the family and the name (kv/covers-context)`);

const file = id.replace("/", "-");
const camel = file.replace(/-([a-z0-9])/g, (_, c) => c.toUpperCase());
const rulePath = join("src", "checks", `${file}.ts`);
const tablePath = join("test", "rules", "tables", `${file}.ts`);
for (const path of [rulePath, tablePath])
  if (existsSync(join(ROOT, path))) fail(`${path} exists: kvgate has a rule named so (ids map to files with / as -)`);
const detectors = parse(readFileSync(join(ROOT, "rules", "secrets.yaml"), "utf8")).detectors.map((d) => `secret/${d.id}`);
if (detectors.includes(id)) fail(`${id} is a secret detector of rules/secrets.yaml: change the detector there`);

const rule = `// ${id}: TODO: what this rule refuses or reports, and why a fleet is better off for it. This comment is
// the "Why" of the rule's page (docs/rules/${file}.md): write it for the person whose commit it refuses.
import { defineCheck, type Report } from "./define.js";

const messages = {
  // One builder per thing the rule can say: what is wrong, with the numbers, and the fix in the
  // spelling the file uses (a fix that is a value also goes in data.fix: see src/model/value-fix.ts).
  todo: (d: { service: string }) => \`\${d.service}: TODO: what is wrong, and what to set\`,
};

export const ${camel} = defineCheck({
  id: "${id}",
  severity: "error",
  description: "TODO: one sentence: what the rule refuses or reports.",
  messages,
  // Pure: read ctx.after (and ctx.before, for a change: the fleet as it runs; ctx.written as its files
  // say it), ctx.policy and ctx.pack; no fs, git or process.
  run(ctx): Report<typeof messages>[] {
    return ctx.after.services.flatMap((): Report<typeof messages>[] => []);
  },
});
`;

const table = `import { ${camel} } from "../../../src/checks/${file}.js";
import { ruleTester } from "../../helpers/rule-tester.js";

// Each case is a repository as files (or a fleet from the fixtures of test/kv/ and test/radiance/):
// a passing one, and a failing one with the findings it must raise, numbers included. The rule's page
// (npm run docs:rules) shows the first of each, run, so write them as the examples a user should read.
export default ruleTester(${camel}, {
  valid: [
    {
      name: "TODO: what passes",
      files: { "scripts/a.env": "ENGINE=vllm\\n" },
    },
  ],
  invalid: [
    {
      name: "TODO: what is refused",
      files: { "scripts/a.env": "ENGINE=vllm\\n" },
      findings: [{ messageId: "todo", line: 1 }],
    },
  ],
});
`;

writeFileSync(join(ROOT, rulePath), rule, { flag: "wx" });
writeFileSync(join(ROOT, tablePath), table, { flag: "wx" });
execFileSync(process.execPath, [join(ROOT, "scripts", "checks-index.mjs")], { cwd: ROOT, stdio: "inherit" });
process.stdout.write(
  [
    `new:rule: wrote ${rulePath} and ${tablePath}, and listed ${id} in src/checks/index.ts. Next:`,
    `  1. write the rule and its cases (the TODO cases fail until then): npx vitest run test/rules/rules.test.ts -t ${id}`,
    `  2. explain it in the reference: an anchor <a id="${file}"></a> where docs/ describes its behaviour`,
    "  3. npm run docs:rules (the README's rule list and docs/rules/" + file + ".md), then npm test",
    "",
  ].join("\n"),
);
