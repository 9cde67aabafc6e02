// Stages the fast path's change in a fleet repo made by make-fleet-repo.mjs: a commit that touches no
// fleet file (two source files edited, one note added; dots, URLs and the word "token" included, no
// value a detector reports). Usage: node stage-docs.mjs DIR
import { execFileSync } from "node:child_process";
import { appendFileSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const [dir] = process.argv.slice(2);
appendFileSync(join(dir, "src/mod0/file1.ts"), "// the retry path. see docs/retry.md\n");
appendFileSync(join(dir, "src/mod0/file2.ts"), "export const limit = 3; // per token bucket\n");
mkdirSync(join(dir, "docs"), { recursive: true });
writeFileSync(join(dir, "docs/retry.md"), "# Retries\n\nThe client retries 3 times. See https://example.com/retries.\n");
execFileSync("git", ["add", "src/mod0/file1.ts", "src/mod0/file2.ts", "docs/retry.md"], { cwd: dir });
