// kvgate rules [RULE...]: every rule id with its default severity and description, or the named rules
// in full with the link to each one's page.
import { parse, oneOf } from "../args.js";
import { UsageError } from "../../errors.js";
import { RULES, ruleById } from "../../checks/registry.js";
import type { RuleMeta } from "../../checks/define.js";
import { nearestName } from "../../units/nearest.js";
import { rulesJson, rulesMarkdown, rulesText, ruleText } from "../../report/rules-doc.js";

function named(ids: readonly string[]): RuleMeta[] {
  return ids.map((id) => {
    const rule = ruleById(id);
    if (!rule)
      throw new UsageError(
        `"${id}" is not a kvgate rule; did you mean ${nearestName(
          id,
          RULES.map((r) => r.id),
        )}?`,
      );
    return rule;
  });
}

export async function rulesCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parse(argv, { format: { type: "string" } } as const, Infinity);
  const format = oneOf("format", values.format, ["text", "json", "markdown"] as const, "text");
  const rules = positionals.length > 0 ? named(positionals) : null;
  let out: string;
  if (format === "json") out = rulesJson(rules ?? RULES);
  else if (format === "markdown") out = rulesMarkdown(rules ?? RULES) + "\n";
  else out = rules ? rules.map(ruleText).join("\n") : rulesText();
  process.stdout.write(out);
  return 0;
}
