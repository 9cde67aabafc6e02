// Writing output: stdout, or --output FILE.
import { writeFileSync } from "node:fs";
import { GateError } from "../errors.js";

export function emit(text: string, output: string | undefined): void {
  if (output === undefined) {
    process.stdout.write(text);
    return;
  }
  try {
    writeFileSync(output, text);
  } catch (e) {
    throw new GateError(`cannot write --output ${output}: ${(e as Error).message}`, { hint: "name a writable path" });
  }
}
