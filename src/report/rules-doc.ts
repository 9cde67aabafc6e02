// The rule list as the README shows it, from the registry: a test keeps the two in sync.
import { RULES } from "../checks/registry.js";

/** The anchor of a rule's row in the README (SARIF's helpUri points at it). */
export function ruleAnchor(id: string): string {
  return `rule-${id.replace(/[^A-Za-z0-9]+/g, "-")}`;
}

export function rulesMarkdown(): string {
  const rows = RULES.map((r) => `| <a id="${ruleAnchor(r.id)}"></a>\`${r.id}\` | ${r.severity} | ${r.description.replace(/\|/g, "\\|")} |`);
  return ["| rule | severity | what it refuses or reports |", "|---|---|---|", ...rows].join("\n");
}

export function rulesText(): string {
  const width = Math.max(...RULES.map((r) => r.id.length));
  return RULES.map((r) => `${r.id.padEnd(width)}  ${r.severity.padEnd(7)}  ${r.description}`).join("\n") + "\n";
}
