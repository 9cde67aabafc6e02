// Temp folders that are not repositories: files written and removed, no git and no process, so unit
// tests may use them (test/helpers/repo.ts builds its repositories on these).
//
//   const dir = await makeFolder();
//   dir.write("scripts/a.env", "ENGINE=vllm\n");  // creates folders as needed
//   await dir.cleanup();                           // in afterEach / afterAll
import { mkdtempSync, mkdirSync, rmSync, symlinkSync, writeFileSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

export interface TempFolder {
  /** Absolute path (symlinks resolved, so it compares equal to what git prints). */
  readonly dir: string;
  /** Writes a file (relative path), creating its folders. */
  write(path: string, content: string | Buffer): void;
  /** Deletes a file or folder (relative path). */
  remove(path: string): void;
  /** Makes `path` a symlink to `target`. */
  symlink(target: string, path: string): void;
  cleanup(): Promise<void>;
}

export async function makeFolder(): Promise<TempFolder> {
  return folderAt(realpathSync(mkdtempSync(join(tmpdir(), "kvgate-test-"))));
}

export function folderAt(dir: string): TempFolder {
  return {
    dir,
    write(path, content) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), content);
    },
    remove(path) {
      rmSync(join(dir, path), { recursive: true, force: true });
    },
    symlink(target, path) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      symlinkSync(target, join(dir, path));
    },
    async cleanup() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
