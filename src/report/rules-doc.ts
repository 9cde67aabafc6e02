// The rule list as `kvgate rules` and the README show it, from the registry, and where each rule's
// page is (docs/rules/<id with / as ->.md, generated from the rule and its table by
// `npm run docs:rules`). A test keeps the README, the pages and this list in sync.
import type { RuleMeta } from "../checks/define.js";
import { RULES } from "../checks/registry.js";

/**
 * Where the rule pages are published: the docs folder of the repository's default branch
 * (package.json `repository`; test/docs/rule-pages.test.ts holds the two together). SARIF wants an
 * absolute URI for helpUri, so a relative docs path is not an option for the log; the default branch
 * rather than the version's tag, so a link never points at a tag that was not pushed.
 */
export const DOCS_URL = "https://github.com/kvgate/kvgate/blob/main/docs";

/** The file of a rule's page under docs/rules/: the id with `/` as `-`, as its source file is named. */
export function ruleDocFile(id: string): string {
  return `${id.replaceAll("/", "-")}.md`;
}

/** The URL of a rule's page (SARIF helpUri, the job summary, `kvgate rules`). */
export function ruleDocUrl(id: string): string {
  return `${DOCS_URL}/rules/${ruleDocFile(id)}`;
}

/** The anchor of a rule's row in the README's rule list (kept: older SARIF logs link to it). */
export function ruleAnchor(id: string): string {
  return `rule-${id.replace(/[^A-Za-z0-9]+/g, "-")}`;
}

const cell = (s: string): string => s.replace(/\|/g, "\\|");

/** The README's rule list: each id links to its page, relative to the repository root. */
export function rulesMarkdown(rules: readonly RuleMeta[] = RULES): string {
  const rows = rules.map(
    (r) => `| <a id="${ruleAnchor(r.id)}"></a>[\`${r.id}\`](docs/rules/${ruleDocFile(r.id)}) | ${r.severity} | ${cell(r.description)} |`,
  );
  return ["| rule | severity | what it refuses or reports |", "|---|---|---|", ...rows].join("\n");
}

export function rulesText(): string {
  const width = Math.max(...RULES.map((r) => r.id.length));
  const lines = RULES.map((r) => `${r.id.padEnd(width)}  ${r.severity.padEnd(7)}  ${r.description}`);
  return (
    `${lines.join("\n")}\n\nEach rule's page (what it checks, why, examples, the fix): ` +
    `${DOCS_URL}/rules/<rule id with / as ->.md; \`kvgate rules <rule>\` prints it.\n`
  );
}

/** One rule in full: id, severity, description and the link to its page. */
export function ruleText(rule: RuleMeta): string {
  return `${rule.id}  ${rule.severity}\n${rule.description}\n${ruleDocUrl(rule.id)}\n`;
}

/** The rules as JSON: each with the URL of its page. */
export function rulesJson(rules: readonly RuleMeta[] = RULES): string {
  return (
    JSON.stringify(
      rules.map((r) => ({ id: r.id, severity: r.severity, description: r.description, docs: ruleDocUrl(r.id) })),
      null,
      2,
    ) + "\n"
  );
}
