// A seat whose whole command line a deploy file writes through something kvgate could not resolve (an
// Ansible lookup, an undefined variable): every flag of the seat was on that line, so what the seat
// does not set is unknown, not absent. fleet/unsized refuses such a seat; a rule that would report a
// flag as missing (gen/output-cap) says nothing about it rather than something false. The loader marks
// the seat (Service.commandUnread, src/load/running.ts), so every check context sees it, deploy
// contexts included.
import type { DeployFile } from "./types.js";

/** A key that holds a whole command line: ARGS, CMD, COMMAND, or *_ARGS / *_FLAGS / *_OPTS. */
export function isCommandKey(key: string): boolean {
  return /^(ARGS|CMD|COMMAND)$|_(ARGS|FLAGS|OPTS)$/.test(key);
}

/** Where a deploy file left `service`'s command line unread, if it did. */
export function unreadCommandOf(
  read: Pick<DeployFile, "problems">,
  service: string,
): { file: string; line: number; key: string } | undefined {
  const p = read.problems.find((x) => x.kind === "unresolved" && x.service === service && x.key !== undefined && isCommandKey(x.key));
  return p?.key !== undefined ? { file: p.file, line: p.line, key: p.key } : undefined;
}
