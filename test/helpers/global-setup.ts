// Builds the CLI and Action bundles once before the suite, so end-to-end tests run what ships.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { dirname, join } from "node:path";

export default function setup(): void {
  const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
  if (process.env.KVGATE_SKIP_BUILD === "1") return;
  const targets = [
    ["cli", "src/cli/main.ts"],
    ["action", "src/action/main.ts"],
  ].filter(([, entry]) => existsSync(join(root, entry as string)));
  for (const [name] of targets) execFileSync(process.execPath, ["build.mjs", name as string], { cwd: root, stdio: "inherit" });
}
