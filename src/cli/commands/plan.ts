// kvgate plan: lands with its issue; until then it says so and exits 2 (never a silent pass).
import { GateError } from "../../errors.js";

export async function planCommand(_argv: string[]): Promise<number> {
  throw new GateError("kvgate plan is not in this build yet");
}
