// kvgate init: lands with its issue; until then it says so and exits 2 (never a silent pass).
import { GateError } from "../../errors.js";

export async function initCommand(_argv: string[]): Promise<number> {
  throw new GateError("kvgate init is not in this build yet");
}
