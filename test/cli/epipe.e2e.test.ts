// `kvgate check | head -4`: the reader closes the pipe after a few lines. The run must end with its
// own exit code (the verdict), not an unhandled EPIPE stack trace. Found by an operator-style trial.
import { expect, test } from "vitest";
import { spawn } from "node:child_process";
import { join } from "node:path";
import { BIN, ROOT } from "../helpers/cli.js";

test("a closed stdout is not a crash: the verdict's exit code, nothing on stderr", async () => {
  // examples/compose passes (with a notice): exit 0.
  const child = spawn(process.execPath, [BIN, "check", "--all", "--repo", join(ROOT, "examples", "compose")], {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, NO_COLOR: "1" },
  });
  let err = "";
  child.stderr.on("data", (b: Buffer) => (err += b.toString()));
  // Closed before the first write, as `| head -0` would: every write meets a closed pipe.
  child.stdout.destroy();
  const code = await new Promise<number | null>((r) => child.on("close", (c) => r(c)));
  expect(err).not.toContain("EPIPE");
  expect(err).toBe("");
  expect(code).toBe(0);
});
