// kvgate rules: every rule id with its default severity and description.
import { parse, oneOf } from "../args.js";
import { RULES } from "../../checks/registry.js";
import { rulesMarkdown, rulesText } from "../../report/rules-doc.js";

export async function rulesCommand(argv: string[]): Promise<number> {
  const { values } = parse(argv, { format: { type: "string" } } as const, 0);
  const format = oneOf("format", values.format, ["text", "json", "markdown"] as const, "text");
  const out = format === "json" ? JSON.stringify(RULES, null, 2) + "\n" : format === "markdown" ? rulesMarkdown() + "\n" : rulesText();
  process.stdout.write(out);
  return 0;
}
