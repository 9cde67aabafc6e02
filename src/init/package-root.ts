// The installed package's root: the folder holding rules/secrets.yaml, found by walking up from this
// module so it works from the source tree (src/rules/) and from the bundle (dist/cli.cjs) alike.
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

let cached: string | null = null;

export function packRoot(): string {
  if (cached) return cached;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 8; i++) {
    if (existsSync(join(dir, "rules", "secrets.yaml"))) return (cached = dir);
    const up = dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  throw new Error("kvgate's rules/ folder is missing next to the installed package; reinstall kvgate");
}
