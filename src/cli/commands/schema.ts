// kvgate schema: the JSON Schema of kvgate.yaml, made from the same zod schema that validates it.
import * as z from "zod";
import { configSchema } from "../../config/schema.js";
import { parse } from "../args.js";

export function configJsonSchema(): string {
  const schema = z.toJSONSchema(configSchema(), { target: "draft-2020-12" });
  return (
    JSON.stringify(
      { ...schema, $id: "https://github.com/kvgate/kvgate/blob/main/rules/kvgate.schema.json", title: "kvgate.yaml" },
      null,
      2,
    ) + "\n"
  );
}

export async function schemaCommand(argv: string[]): Promise<number> {
  parse(argv, {}, 0);
  process.stdout.write(configJsonSchema());
  return 0;
}
